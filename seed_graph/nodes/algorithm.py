"""What the learner shell (`seed_graph.nodes.learner.Learner`) asks of an algorithm.

An algorithm is built in the learner's process as
`make_algorithm(config, env_info, stop_event, *args, devices=...)`, inside
`devices.variable_scope()`, with its variables created; it trains through
`devices.distribute` and `devices.gradient_step` (`seed_graph.learner_devices`), so the
same code runs on one device or split over several. It is then called from threads: the
inference hooks (`reset`, `policy_inputs`, `record`) from the batcher threads under the
shell's step lock, one batch at a time, and `act`, traced once per inference device; the
training hooks (`prepare`, `next_batch`, `train`, `before_checkpoint`, `close`) from
the node's main thread. `stats` may be called from either, and from the control edge.
"""

import abc
from typing import Callable, Dict, Optional

import numpy as np

from seed_graph.inference import messages


class Algorithm(abc.ABC):
  """See the module docstring. Rows are those of a merged `InferenceRequest`."""

  @abc.abstractmethod
  def example_policy_inputs(self):
    """`act`'s inputs as one-row tensors: (prev_actions, rewards, dones, observations,
    core_state (a nest), exploration). The shell traces `act` with these."""

  @abc.abstractmethod
  def act(self, prev_actions, rewards, dones, observations, core_state, exploration):
    """TensorFlow, traced once: returns (actions int32 [B], extras [B, ...] to record,
    new core_state)."""

  @abc.abstractmethod
  def checkpoint_items(self) -> Dict[str, object]:
    """Trackables saved in the model checkpoint beside the shell's counters."""

  @abc.abstractmethod
  def policy_inputs(self, step: messages.InferenceRequest, new_run: np.ndarray):
    """(observations, exploration) as `act` takes them, for every row of `step`;
    `new_run` marks rows whose environment started a new actor run."""

  @abc.abstractmethod
  def record(self, step: messages.InferenceRequest, training: np.ndarray, prev_actions,
             actions, extras, states_before):
    """Keeps the `training` rows of a step for training (may block: back-pressure).
    `states_before` are the recurrent states before the step, one array per component."""

  @abc.abstractmethod
  def next_batch(self):
    """A training batch, or None if none is ready within about a second."""

  @abc.abstractmethod
  def train(self, batch) -> Dict[str, float]:
    """One training step; returns its losses and figures for the metrics, and
    `update_applied`: False when the loss or gradients were not finite and the
    variables were left as they were (the batch is skipped)."""

  def reset(self, env_ids: np.ndarray):
    """These environments started a new actor run: forget their partial data."""

  def prepare(self, stopping: Callable[[], bool]) -> bool:
    """Waits for what training needs before inference starts; False if stopped."""
    del stopping
    return True

  def stats(self) -> Dict[str, Optional[float]]:
    """The algorithm's own counters for `get_stats` and the metrics."""
    return {}

  def before_checkpoint(self):
    """Saves what the model checkpoint does not hold, just before it is written."""

  def close(self):
    """Inference has stopped: flush and release what the algorithm holds."""
