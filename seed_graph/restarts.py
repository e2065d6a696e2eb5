"""How often the launcher has restarted each group's crashed nodes, kept in the logdir.

The supervising launcher (`launch.supervisor`) writes `<logdir>/restarts.json`, e.g.
`{"actor": 3, "learner": 1}`, replacing the file whole on each restart; the learner adds
the counts to its metrics lines as `restarts_<group>`. A file, because the learner may
itself be the node that was restarted, and the counts outlive any one process.
"""

import json
import os
from typing import Dict

import tensorflow as tf

FILE_NAME = 'restarts.json'


def write(logdir: str, counts: Dict[str, int]):
  path = os.path.join(logdir, FILE_NAME)
  with tf.io.gfile.GFile(path + '.tmp', 'w') as f:  # A local path or a bucket.
    json.dump(counts, f)
  # Readers see the old counts or the new, never half.
  tf.io.gfile.rename(path + '.tmp', path, overwrite=True)


def read(logdir: str) -> Dict[str, int]:
  """The counts so far, as metrics keys (`restarts_actor`, ...); {} before any restart."""
  try:
    with tf.io.gfile.GFile(os.path.join(logdir, FILE_NAME)) as f:
      counts = json.load(f)
  except (OSError, ValueError, tf.errors.NotFoundError):
    return {}
  return {f'restarts_{group}': int(count) for group, count in counts.items()}
