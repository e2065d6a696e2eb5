"""Runs carried in git from one machine to the next: what resuming needs, in a file git
tracks.

A run's logdir lives under the suite's root, which git ignores (its logs and TensorBoard
events grow by the hour). A checkout that comes back as a clone of what was committed
has lost it: two runs were lost so, at 31.8M and 27.2M of 40M frames. So when the suite
stops a run (in order, or at its budget) it packs into `<carry_dir>/<game>/<run>.tar.xz`:

- `carried.json` first (the run's frames and checkpoint, read without unpacking the rest),
- the newest checkpoint whole (model, optimizer slots, step and frame counters: the
  learning rate's place in its schedule) with the recent episode returns beside it, and
  a `checkpoints/checkpoint` index naming only it,
- the run's records: `suite.json`, `config.json`, `metrics.jsonl` (the curve) and
  `eval.json`.

Committed, the file travels with the repository. Before the suite launches a run whose
logdir is missing, or has trained fewer frames than the carried file, it unpacks the file
there (an existing logdir is first moved aside, to `.<run>.before-carried-<time>`, not
deleted) and the run resumes from it.

Not carried: TensorBoard's events, the nodes' logs and the launcher's output (a resumed
run starts new ones), and the replay of a run that has one (R2D2's: a run resumed from a
carried file refills it from its actors before training goes on).
"""

import io
import json
import os
import shutil
import tarfile
import time
from typing import Optional

from seed_graph.launch.runs import end_of_run

SUFFIX = '.tar.xz'
MANIFEST = 'carried.json'
RECORDS = ('suite.json', 'config.json', 'metrics.jsonl', 'eval.json')
EPISODE_RETURNS = 'checkpoints/episode_returns.json'


def manifest(path: str) -> Optional[dict]:
  """The carried file's `carried.json`, or None if there is no file at `path`."""
  if not os.path.exists(path):
    return None
  with tarfile.open(path, 'r:xz') as archive:
    first = archive.next()
    if first is None or first.name != MANIFEST:
      raise ValueError(f'{path}: not a carried run (its first member is not {MANIFEST})')
    return json.load(archive.extractfile(first))


def _add_bytes(archive: tarfile.TarFile, name: str, data: bytes) -> None:
  info = tarfile.TarInfo(name)
  info.size, info.mtime = len(data), int(time.time())
  archive.addfile(info, io.BytesIO(data))


def _index(name: str) -> str:
  """TensorFlow's `checkpoint` index naming one checkpoint. Its timestamps matter: a
  CheckpointManager lists only the checkpoints saved after `last_preserved_timestamp`."""
  now = time.time()
  return (f'model_checkpoint_path: "{name}"\nall_model_checkpoint_paths: "{name}"\n'
          f'all_model_checkpoint_timestamps: {now:.3f}\n'
          f'last_preserved_timestamp: {now - 1:.3f}\n')


def pack(logdir: str, path: str, frames: int) -> bool:
  """Packs the run in `logdir` (trained to `frames`) into `path`, unless it holds no
  checkpoint or `path` already carries this checkpoint; whether it wrote."""
  checkpoint = end_of_run.newest_checkpoint(logdir)
  if checkpoint is None:
    return False
  name = os.path.basename(checkpoint)
  carried = manifest(path)
  if carried and (carried['checkpoint'], carried['frames']) == (name, frames):
    return False  # The same bytes again would be a new blob in git's history.
  os.makedirs(os.path.dirname(path) or '.', exist_ok=True)
  partial = path + '.partial'
  with tarfile.open(partial, 'w:xz') as archive:
    _add_bytes(archive, MANIFEST, json.dumps(
        {'frames': frames, 'checkpoint': name,
         'packed': time.strftime('%Y-%m-%d %H:%M')}).encode())
    directory = os.path.dirname(checkpoint)
    for member in sorted(os.listdir(directory)):
      if member.startswith(name + '.'):  # ckpt-N.index, ckpt-N.data-*
        archive.add(os.path.join(directory, member), f'checkpoints/{member}')
    _add_bytes(archive, 'checkpoints/checkpoint', _index(name).encode())
    for member in (EPISODE_RETURNS, *RECORDS):
      if os.path.exists(os.path.join(logdir, member)):
        archive.add(os.path.join(logdir, member), member)
  os.replace(partial, path)  # Whole or not at all.
  return True


def _beside(logdir: str, what: str) -> str:
  """A hidden sibling of `logdir` (`.<run>.<what>`), which the page's search for runs
  (`<root>/*/*/suite.json`) passes over."""
  parent, name = os.path.split(os.path.normpath(logdir))
  return os.path.join(parent, f'.{name}.{what}')


def unpack(path: str, logdir: str, frames: int) -> Optional[str]:
  """Unpacks the carried run at `path` into `logdir` if it has trained more than the
  `frames` there (0: none); a line saying what it did (and where an existing logdir was
  moved), or None."""
  carried = manifest(path)
  if carried is None or carried['frames'] <= frames:
    return None
  partial = _beside(logdir, 'partial')
  shutil.rmtree(partial, ignore_errors=True)  # Left by an unpacking cut short.
  with tarfile.open(path, 'r:xz') as archive:
    members = [m for m in archive.getmembers() if m.name != MANIFEST]
    for member in members:
      if not member.isfile() or member.name.startswith(('/', '..')) or '/../' in member.name:
        raise ValueError(f'{path}: a member named {member.name!r} is not a run\'s file')
    archive.extractall(partial, members)
  moved = ''
  if os.path.exists(logdir):
    aside = _beside(logdir, f'before-carried-{time.strftime("%Y%m%d-%H%M%S")}')
    os.rename(logdir, aside)
    moved = f' ({frames} frames there moved to {aside})'
  os.rename(partial, logdir)
  return (f'unpacked {path} ({carried["frames"]} frames, {carried["checkpoint"]}, packed '
          f'{carried["packed"]}) into {logdir}{moved}')
