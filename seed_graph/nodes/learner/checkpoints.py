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
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

from absl import logging
import numpy as np
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


def _trackable(root, key: str):
  """The object a checkpoint key names ('agent/_core/_convs/0/w': attributes, list
  indices and dict keys from `root`, as TensorFlow's checkpoints name them)."""
  found = root
  for part in key.split('/'):
    try:
      found = (found[int(part)] if isinstance(found, (list, tuple)) else
               found[part] if isinstance(found, dict) else getattr(found, part))
    except (AttributeError, IndexError, KeyError, ValueError):
      raise KeyError(f'{key}: this learner has nothing at {part!r}') from None
  return found


class AssignedValues:
  """`restore`'s answer to values given by key: TensorFlow's status's `expect_partial`,
  which has nothing to do (a variable given no value keeps its own)."""

  def expect_partial(self) -> 'AssignedValues':
    return self


class LearnerCheckpoints:
  """A learner's checkpoints in `<logdir>/checkpoints` (the newest 3): its step and frame
  counters, the algorithm's checkpoint items and its hyperparameters, with the recent
  episode returns beside them. Resumes from the newest intact one at construction:
  `resumed_from` names it (None: a fresh start), `damaged` says what was skipped."""

  def __init__(self, logdir: str, items: Dict[str, Any], hyperparameters=None):
    if hyperparameters is not None:
      items = dict(items, hyperparameters=hyperparameters)
    self.learner_steps = tf.Variable(0, dtype=tf.int64, trainable=False)
    self._frames = tf.Variable(0, dtype=tf.int64, trainable=False)
    self._checkpoint = tf.train.Checkpoint(learner_steps=self.learner_steps,
                                           frames=self._frames, **items)
    self._manager = tf.train.CheckpointManager(
        self._checkpoint, os.path.join(logdir, 'checkpoints'), max_to_keep=3)
    self.directory = self._manager.directory
    self.resumed_from, self.damaged = newest_intact(self._manager.checkpoints)
    if self.resumed_from:
      # Partial until the optimizer's slots exist (they are restored when created, at
      # the first training step); a learner that never trains (launch.eval) leaves them
      # unused, which TensorFlow would otherwise warn about, value by value.
      self.restore(self.resumed_from).expect_partial()
      logging.info('Resumed from %s', self.resumed_from)

  def restore(self, checkpoint: Union[str, Mapping[str, np.ndarray]]):
    """Loads a checkpoint, by its path, or the values of one by key (a shipped agent's:
    `seed_graph.launch.pretrained`); TensorFlow's restore status, or its like."""
    if isinstance(checkpoint, str):
      return self._checkpoint.restore(checkpoint)
    for key, value in checkpoint.items():
      variable = _trackable(self._checkpoint, key)
      if tuple(variable.shape) != np.shape(value):
        raise ValueError(f'{key}: a value of shape {np.shape(value)} for a variable of '
                         f'shape {tuple(variable.shape)}')
      variable.assign(np.asarray(value).astype(variable.dtype.as_numpy_dtype))
    return AssignedValues()

  @property
  def frames(self) -> int:
    """The frame count the last restored or saved checkpoint holds."""
    return int(self._frames.numpy())

  def episode_returns(self) -> dict:
    return read_episode_returns(self.directory)

  def take_episode_returns(self) -> dict:
    """`episode_returns()`, its games in flight (`EpisodeStatistics.state(in_flight=True)`)
    then removed from the file: they hold for the first learner that resumes from them
    only, since the actors play on under it (one that crashes before its first save
    must not hand them on)."""
    state = self.episode_returns()
    if 'in_flight' in state:
      write_episode_returns(self.directory,
                            {key: value for key, value in state.items() if key != 'in_flight'})
    return state

  def save(self, frames: int, episode_returns: dict) -> str:
    """Writes a checkpoint (and the episode returns beside it); its path."""
    self._frames.assign(frames)
    path = self._manager.save()
    write_episode_returns(self.directory, episode_returns)
    return path
