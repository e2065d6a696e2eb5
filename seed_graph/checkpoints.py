"""Which checkpoint a learner resumes from: the newest one that reads whole.

A checkpoint damaged after it was written (a full disk, a killed copy, a truncated file)
must not be the reason a run cannot resume: each is read through, tensor by tensor,
before anything is restored from it, and the first intact one from the newest back is
used; each one skipped is reported by name with what is wrong with it.

Writing cannot leave the newest one damaged: TensorFlow writes a checkpoint's files under
a temporary name and renames them when complete, and only then records the checkpoint as
the newest in the directory's `checkpoint` file, so a process that dies mid-write leaves
the previous checkpoint the newest.
"""

import json
import os
from typing import List, Optional, Tuple

from absl import logging
import tensorflow as tf


def damage(path: str) -> Optional[str]:
  """What is wrong with the checkpoint at `path` (prefix), or None if it reads whole."""
  try:
    reader = tf.train.load_checkpoint(path)
    for name in reader.get_variable_to_shape_map():
      reader.get_tensor(name)
  except (tf.errors.OpError, ValueError, IndexError, OSError) as error:
    return f'{type(error).__name__}: {str(error).strip().splitlines()[0][:300]}'
  return None


def newest_intact(paths: List[str]) -> Tuple[Optional[str], List[str]]:
  """(the newest of `paths`, oldest first, that reads whole or None, a line for each
  newer one skipped)."""
  skipped = []
  for path in reversed(paths):
    problem = damage(path)
    if problem is None:
      return path, skipped
    skipped.append(f'checkpoint {path} is damaged ({problem}); trying the one before it')
    logging.warning(skipped[-1])
  return None, skipped


# The recent episode returns (the windows of `episode_return`), kept beside the model
# checkpoints so a resumed run's curve goes on instead of starting its windows empty.
EPISODES_FILE = 'episode_returns.json'


def write_episode_returns(directory: str, state: dict) -> None:
  path = os.path.join(directory, EPISODES_FILE)
  with tf.io.gfile.GFile(path + '.tmp', 'w') as f:  # A local path or a bucket.
    json.dump(state, f)
  tf.io.gfile.rename(path + '.tmp', path, overwrite=True)  # Whole or not at all.


def read_episode_returns(directory: str) -> dict:
  """What `write_episode_returns` wrote last, or {} (none yet, or unreadable)."""
  try:
    with tf.io.gfile.GFile(os.path.join(directory, EPISODES_FILE)) as f:
      state = json.load(f)
  except (OSError, ValueError, tf.errors.OpError):
    return {}
  return state if isinstance(state, dict) else {}
