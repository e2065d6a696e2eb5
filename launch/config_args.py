"""The launcher's config on the command line and in the logdir.

`unknown_override`: an override of a key the config does not have fails in one line
naming the closest key. ml_collections reports it as a chain of tracebacks; this check
runs first, on the same config file: `--config.learner.learning_rat: no such key in
configs/cartpole_vtrace.py; did you mean learner.learning_rate?`.

`write_config`: every launch records the config it ran with in `<logdir>/config.json`
(the previous one, from an earlier launch of the same logdir, moves to
`config.previous.json`). `changes_since_last_launch` compares a resumed run's config
with it: a changed key that shapes the checkpoint (or the replay) fails, others are
listed.
"""

import difflib
import json
import os
import runpy
from typing import Iterable, List, Optional

import ml_collections

_PREFIX = '--config.'
# Keys (or sections, ending in '.') a checkpoint or replay of this logdir depends on:
# the variables' shapes, the environment's observations and actions, the stored
# sequence layout.
SHAPE_KEYS = ('algorithm', 'env.', 'network.', 'learner.unroll_length', 'learner.burn_in',
              'replay.')

# Under the prefixes above but not shaping the checkpoint (variables stay float32).
NOT_SHAPE_KEYS = ('network.compute_dtype', 'learner.inference_devices',
                  'learner.training_devices', 'learner.training_strategy')

# Keys added after logdirs were written without them, with the value that behaves as
# their absence did: a logdir from before the key resumes with it as a non-change.
ADDED_KEYS = {'network.compute_dtype': 'float32', 'env.frame_stack': 1,
              'learner.inference_devices': 0, 'learner.training_devices': 0,
              'learner.training_strategy': 'mirrored', 'network.center_frames': False}


def config_file(argv: Iterable[str]) -> Optional[str]:
  for arg in argv:
    if arg.startswith('--config='):
      return arg[len('--config='):].split(':')[0]
  return None


def take_overrides(argv: List[str], overrides: List[str]) -> List[str]:
  """Appends the `KEY=VALUE` of every `--config.KEY=VALUE` in `argv` to `overrides`
  (for commands that pass them on as text); returns the other arguments."""
  overrides.extend(a[len('--config.'):] for a in argv if a.startswith('--config.'))
  return [a for a in argv if not a.startswith('--config.')]


def unknown_override(argv: List[str]) -> Optional[str]:
  """A one-line error for a missing config file or for the first `--config.<key>`
  override whose key the config file does not define; None when all is well."""
  path = config_file(argv)
  if path is None:
    return None
  if not os.path.isfile(path):
    return f'--config={path}: no such file'
  keys = set(flat_keys(runpy.run_path(path)['get_config']().to_dict()))
  for arg in argv:
    if not arg.startswith(_PREFIX):
      continue
    key = arg[len(_PREFIX):].split('=')[0]
    if key in keys:
      continue
    close = difflib.get_close_matches(key, sorted(keys), n=1, cutoff=0.6)
    hint = f'; did you mean {close[0]}?' if close else ''
    return f'{_PREFIX}{key}: no such key in {path}{hint}'
  return None


def write_config(config: ml_collections.ConfigDict):
  path = os.path.join(config.logdir, 'config.json')
  if os.path.exists(path):
    os.replace(path, os.path.join(config.logdir, 'config.previous.json'))
  with open(path, 'w') as f:
    f.write(config.to_json(indent=2) + '\n')


def flat_keys(config_dict: dict, prefix: str = '') -> dict:
  """{'learner.learning_rate': value, ...}: every leaf of a nested dict, dotted."""
  flat = {}
  for key, value in config_dict.items():
    if isinstance(value, dict):
      flat.update(flat_keys(value, f'{prefix}{key}.'))
    else:
      flat[prefix + key] = value
  return flat


def changes_since_last_launch(config: ml_collections.ConfigDict):
  """(shape-defining changes, other changes) against `<logdir>/config.json`, each a list
  of 'key: old -> new'; both empty for a new logdir."""
  path = os.path.join(config.logdir, 'config.json')
  if not os.path.exists(path):
    return [], []
  with open(path) as f:
    old = flat_keys(json.load(f))
  new = flat_keys(json.loads(config.to_json()))
  for key, value in ADDED_KEYS.items():
    if key in new and key not in old:
      old[key] = value
  shape, other = [], []
  for key in sorted(set(old) | set(new)):
    if old.get(key) != new.get(key):
      change = f'{key}: {old.get(key)!r} -> {new.get(key)!r}'
      defines_shape = key not in NOT_SHAPE_KEYS and any(
          key == k or (k.endswith('.') and key.startswith(k)) for k in SHAPE_KEYS)
      (shape if defines_shape else other).append(change)
  return shape, other
