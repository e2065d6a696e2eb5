"""What a population controller (or a schedule of one's own) changes in a running
learner, between two training steps: its trained state (networks and optimizer, copied
from another learner: PBT's exploit) and its hyperparameters (PBT's explore). Served on
the control edge (`seed_graph/nodes/learner/control_edge.py`); every change is counted in the
learner's metrics (`weights_loaded`, `hyperparameters_set`), with the values as
`hyperparameter/<name>`."""

import collections
import threading
from typing import Dict

from absl import logging

from seed_graph.algos import base
from seed_graph.algos import state_bytes


class LearnerTuning:
  """`LearnerTuning(algorithm, train_lock)`: the lock is the one training steps hold."""

  def __init__(self, algorithm: base.Algorithm, train_lock: threading.Lock):
    self._algorithm = algorithm
    self._lock = train_lock
    self._changes = collections.Counter()

  def get_weights(self) -> Dict[str, bytes]:
    """The algorithm's trained state as bytes (`seed_graph.algos.state_bytes`)."""
    with self._lock:
      return state_bytes.to_bytes(self._algorithm.checkpoint_items())

  def set_weights(self, state: Dict[str, bytes], source: str = '') -> None:
    """Takes another learner's trained state (its `get_weights`); `source` names it in
    the log. A state of another network raises ValueError and changes nothing."""
    with self._lock:
      state_bytes.load_bytes(self._algorithm.checkpoint_items(), state)
      self._changes['weights_loaded'] += 1
    logging.info('weights loaded from %s', source or 'another learner')

  def get_hyperparameters(self) -> Dict[str, float]:
    """The algorithm's changeable hyperparameters and their values ({} if none)."""
    tunable = self._algorithm.hyperparameters
    return {} if tunable is None else tunable.values()

  def set_hyperparameters(self, values: Dict[str, float]) -> Dict[str, float]:
    """Sets some of them, used from the next training step on; returns them all."""
    tunable = self._algorithm.hyperparameters
    if tunable is None:
      raise ValueError(f'{type(self._algorithm).__name__} has no hyperparameters to set')
    with self._lock:
      now = tunable.update(values)
      self._changes['hyperparameters_set'] += 1
    logging.info('hyperparameters now %s', now)
    return now

  def stats(self) -> Dict[str, float]:
    stats = dict(self._changes)
    for name, value in self.get_hyperparameters().items():
      stats[f'hyperparameter/{name}'] = value
    return stats
