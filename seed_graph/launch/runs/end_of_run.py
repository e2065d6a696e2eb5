"""What the launcher says as a run ends (how far it got, what it scored, what was saved,
and what to run next: evaluate a finished run; the same command resumes a stopped one)
and as one resumes (from which checkpoint). Read from the run's own files, so it says
the same whatever ended it."""

import os
import re
from typing import Optional

from seed_graph.nodes.learner import metrics as metrics_lib

_NEWEST = re.compile(r'^model_checkpoint_path:\s*"([^"]+)"', re.M)


def newest_checkpoint(logdir: str) -> Optional[str]:
  """`<logdir>/checkpoints/ckpt-N` as TensorFlow's index file names the newest, or None."""
  index = os.path.join(logdir, 'checkpoints', 'checkpoint')
  try:
    with open(index) as f:
      match = _NEWEST.search(f.read())
  except OSError:
    return None
  return os.path.join(logdir, 'checkpoints', os.path.basename(match.group(1))) if (
      match) else None


def _count(frames: int) -> str:
  for unit, size in (('M', 1e6), ('k', 1e3)):
    if frames >= size:
      return f'{frames / size:.3g}{unit}'
  return str(frames)


def _score(record: dict, key: str) -> str:
  value = record.get(key)
  return '-' if value is None else f'{value:.4g}'


def resuming(logdir: str) -> Optional[str]:
  """'resuming from <checkpoint> ...' for a logdir that holds one; None for a new run."""
  checkpoint = newest_checkpoint(logdir)
  if not checkpoint:
    return None
  last = metrics_lib.last_record(logdir)
  where = f' (its last metrics: {_count(int(last["frames"]))} frames)' if last else ''
  return f'resuming from {checkpoint}{where}'


def summary(logdir: str, total_frames: int) -> str:
  """One line: 'finished: ...' or 'stopped at ...', with the next command."""
  last = metrics_lib.last_record(logdir)
  checkpoint = newest_checkpoint(logdir)
  if not last or not checkpoint:
    return ('stopped before the learner saved a checkpoint: the same command starts the '
            'run afresh')
  frames = int(last['frames'])
  scores = (f'return {_score(last, "episode_return")}, '
            f'eval {_score(last, "eval_episode_return")}')
  if frames >= total_frames:
    return (f'finished: {_count(frames)} frames, {scores}; checkpoint {checkpoint}; '
            f'evaluate and film it: python -m seed_graph.launch.eval --logdir={logdir} '
            f'--video={os.path.join(logdir, "films")}')
  return (f'stopped at {_count(frames)} of {_count(total_frames)} frames, {scores}; '
          f'saved {checkpoint}; the same command resumes it')
