"""What the learner shell (`seed_graph.nodes.learner.shell.Learner`) asks of an algorithm.

An algorithm is built in the learner's process as
`make_algorithm(config, context, *args)` (`context`: an `AlgorithmContext`), inside
`context.devices.variable_scope()`, with its variables created; it trains through
`devices.distribute` and `devices.gradient_step` (`seed_graph.algos.learner_devices`),
so the same code runs on one device or split over several. It is then called from
threads: the inference hooks (`reset`, `policy_inputs`, `record`) from the batcher
threads under the shell's step lock, one batch at a time, and `act`, traced once per
inference device; the training hooks (`prepare`, `next_batch`, `train`,
`before_checkpoint`, `close`) from the node's main thread. `stats` may be called from
either, and from the control edge.

Rows of a step (`InferenceStep`) are environments: training environments have ids
below `context.num_training_envs`, evaluation ones above.
"""

import abc
import dataclasses
import threading
from typing import Any, Callable, Dict, Optional, Protocol, Sequence, Tuple, TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # Annotations only: actors import this module without TensorFlow.
  import tensorflow as tf  # pylint: disable=g-bad-import-order


@dataclasses.dataclass(frozen=True)
class EnvironmentSpec:
  """What an algorithm knows of the environment: one observation array per step,
  discrete actions, and how many emulator frames one step advances."""
  observation_shape: Tuple[int, ...]
  observation_dtype: np.dtype
  num_actions: int
  frames_per_step: int = 1


@dataclasses.dataclass(frozen=True)
class AlgorithmContext:
  """What the learner shell gives the algorithm it builds."""
  spec: EnvironmentSpec
  num_envs: int                  # Every environment: training, then evaluation ones.
  num_training_envs: int
  stop_event: threading.Event    # Set when the learner stops: blocking hooks return.
  devices: Any                   # A `learner_devices.LearnerDevices`.


class InferenceStep(Protocol):
  """The rows of one merged inference request (`seed_graph.inference.messages`)."""
  env_ids: np.ndarray        # [B] int
  observations: np.ndarray   # [B, ...] as the environments give them
  rewards: np.ndarray        # [B] float32: reward of the transition into this step
  dones: np.ndarray          # [B] bool: this observation starts a new episode
  truncations: np.ndarray    # [B] bool: that episode ended by a time limit
  is_eval: np.ndarray        # [B] bool: an evaluator's environment


class Algorithm(abc.ABC):
  """See the module docstring."""

  # True: the algorithm stacks `env.frame_stack` frames itself (on the learner), so
  # actors step single frames; False: actors stack them.
  stacks_frames: bool = False

  # What the learner may change while training (`hyperparameters.Hyperparameters`:
  # served on the control edge, checkpointed), or None.
  hyperparameters: Optional[Any] = None

  @abc.abstractmethod
  def example_policy_inputs(self) -> tuple:
    """`act`'s inputs as one-row tensors: (prev_actions, rewards, dones, observations,
    core_state (a nest), exploration). The shell traces `act` with these."""

  @abc.abstractmethod
  def act(self, prev_actions: 'tf.Tensor', rewards: 'tf.Tensor', dones: 'tf.Tensor',
          observations: 'tf.Tensor', core_state: Any, exploration: 'tf.Tensor'
          ) -> Tuple['tf.Tensor', 'tf.Tensor', Any]:
    """TensorFlow, traced once: returns (actions int32 [B], extras [B, ...] to record,
    new core_state)."""

  @abc.abstractmethod
  def checkpoint_items(self) -> Dict[str, Any]:
    """Trackables saved in the model checkpoint beside the shell's counters."""

  @abc.abstractmethod
  def policy_inputs(self, step: InferenceStep, new_run: np.ndarray) -> tuple:
    """(observations, exploration) as `act` takes them, for every row of `step`;
    `new_run` marks rows whose environment started a new actor run."""

  @abc.abstractmethod
  def record(self, step: InferenceStep, training: np.ndarray, prev_actions: np.ndarray,
             actions: np.ndarray, extras: np.ndarray,
             states_before: Sequence[np.ndarray]) -> None:
    """Keeps the `training` rows of a step for training (may block: back-pressure).
    `states_before` are the recurrent states before the step, one array per component."""

  @abc.abstractmethod
  def next_batch(self) -> Optional[Any]:
    """A training batch, or None if none is ready within about a second."""

  @abc.abstractmethod
  def train(self, batch) -> Dict[str, float]:
    """One training step; returns its losses and figures for the metrics, and
    `update_applied`: False when the loss or gradients were not finite and the
    variables were left as they were (the batch is skipped)."""

  def reset(self, env_ids: np.ndarray) -> None:
    """These environments started a new actor run: forget their partial data."""

  def wait_to_act(self) -> None:
    """Called before each inference step, outside the shell's locks; may block while
    the algorithm wants no new data (V-trace's collect-then-train)."""

  def prepare(self, stopping: Callable[[], bool]) -> bool:
    """Waits for what training needs before inference starts; False if stopped."""
    del stopping
    return True

  def stats(self) -> Dict[str, Optional[float]]:
    """The algorithm's own counters for `get_stats` and the metrics."""
    return {}

  def before_checkpoint(self) -> None:
    """Saves what the model checkpoint does not hold, just before it is written."""

  def close(self) -> None:
    """Inference has stopped: flush and release what the algorithm holds."""
