r"""Trained agents shipped with seed_graph: a run's final weights, small, to evaluate and
film at once.

  python -m seed_graph.launch.eval --pretrained=Pong [--episodes=10] [--video=films/pong]
  python -m seed_graph.launch.pretrained --logdir=runs/atari/Pong/40M-seed0 --name=Pong

The second command makes one from a run: into `seed_graph/pretrained/` (or `--folder`)
it writes `<name>.npz`, every value of the run's newest checkpoint but the optimizer's
(its moments are as large as the weights and evaluation never trains), its float32
values stored as float16 (half the bytes), and `<name>.json`, the run's config and where
the values came from. `launch.eval --pretrained=<name>` builds the learner from that
config and loads the values by their checkpoint keys, cast back to float32
(`LearnerCheckpoints.restore`). docs/running.md ("Shipped agents") gives each one's
return, from the shipped file and from the run's own checkpoint.
"""

import json
import os
from typing import Dict, Optional, Tuple

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '2')

from absl import app  # pylint: disable=g-import-not-at-top
from absl import flags
import ml_collections
import numpy as np
import tensorflow as tf

from seed_graph.config import record as config_record
from seed_graph.config import schema as config_schema
from seed_graph.programs import registry

FOLDER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                      'pretrained')
_VALUE = '/.ATTRIBUTES/VARIABLE_VALUE'  # How a checkpoint key of a variable ends.


class PretrainedError(ValueError):
  """An agent that cannot be made or loaded, said in one line."""


def names(folder: str = FOLDER):
  return sorted(n[:-len('.json')] for n in os.listdir(folder) if n.endswith('.json'))


def _shipped(key: str) -> bool:
  """A variable's value that evaluation uses: not the optimizer's."""
  return (key.endswith(_VALUE) and not key.startswith('optimizer/')
          and '.OPTIMIZER_SLOT' not in key)


def export(logdir: str, name: str, folder: str = FOLDER) -> Tuple[str, str]:
  """Writes `<name>.npz` and `<name>.json` from the newest checkpoint of the run in
  `logdir` (see the module docstring); their paths."""
  checkpoint = tf.train.latest_checkpoint(os.path.join(logdir, 'checkpoints'))
  if checkpoint is None:
    raise PretrainedError(f'{logdir}/checkpoints holds no checkpoint')
  reader = tf.train.load_checkpoint(checkpoint)
  values = {}
  for key in sorted(filter(_shipped, reader.get_variable_to_shape_map())):
    value = reader.get_tensor(key)
    values[key[:-len(_VALUE)]] = value.astype(np.float16) if value.dtype == np.float32 else value
  with open(os.path.join(logdir, config_record.FILE)) as f:
    config = dict(json.load(f), logdir='')  # No path of the machine it ran on.
  os.makedirs(folder, exist_ok=True)
  paths = os.path.join(folder, f'{name}.npz'), os.path.join(folder, f'{name}.json')
  np.savez_compressed(paths[0], **values)
  with open(paths[1], 'w') as f:
    json.dump({'name': name, 'from_run': os.path.relpath(logdir),
               'checkpoint': os.path.basename(checkpoint),
               'frames': int(values.get('frames', 0)),
               'learner_steps': int(values.get('learner_steps', 0)),
               'stored': 'float32 values as float16; no optimizer state',
               'config': config}, f, indent=1)
  return paths


def load(name: str, logdir: str, folder: str = FOLDER
         ) -> Tuple[ml_collections.ConfigDict, Dict[str, np.ndarray], dict]:
  """(the agent's config with `logdir` as its logdir, its values by checkpoint key, where
  it came from)."""
  path = os.path.join(folder, f'{name}.json')
  if not os.path.exists(path):
    raise PretrainedError(f'no shipped agent {name!r}; there are: '
                          f'{", ".join(names(folder)) or "none"}')
  with open(path) as f:
    about = json.load(f)
  config = ml_collections.ConfigDict(about.pop('config'))
  config_schema.complete(config, registry.schema(config))
  config.logdir = logdir
  with np.load(os.path.join(folder, f'{name}.npz')) as stored:
    values = {key: stored[key] for key in stored.files}
  return config, values, about


def main(argv) -> Optional[int]:
  del argv
  try:
    paths = export(flags.FLAGS.logdir, flags.FLAGS.name, flags.FLAGS.folder)
  except (OSError, PretrainedError) as error:
    print(f'error: {error}', flush=True)
    return 2
  print(', '.join(f'{p} ({os.path.getsize(p) / 1e6:.2f} MB)' for p in paths), flush=True)
  return None


if __name__ == '__main__':
  # Here only: launch.eval imports this module and has a --logdir of its own.
  flags.DEFINE_string('logdir', None, 'The training run to take the agent from.')
  flags.DEFINE_string('name', None, 'The agent\'s name (--pretrained=NAME).')
  flags.DEFINE_string('folder', FOLDER, 'Where the agent goes.')
  flags.mark_flags_as_required(['logdir', 'name'])
  app.run(main)
