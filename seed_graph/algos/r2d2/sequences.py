"""Per-environment R2D2 sequence assembly into Reverb.

Every training environment has its own Reverb `TrajectoryWriter`. Each step is appended
to it once; an item is a *reference* to the last `stored_length` steps, so consecutive
sequences, which overlap, share their chunks: a step is stored once (compressed), not once
per sequence that contains it.

Layout of a sequence (`SequenceLayout`): `burn_in + unroll_length + 1` steps, plus
`stack - 1` leading steps when the learner stacks frames (their observations complete
the first stacked frames). A new sequence starts every `unroll_length` steps, so the next
one's burn-in is the last `burn_in` steps of the previous one's unroll and its first
trained step is the previous one's bootstrap step: the trained parts tile the stream.

Columns of an item (all `[stored_length, ...]` except `core_state`):
  observation (as the actor sent it, e.g. uint8 84x84), prev_action, reward, done,
  truncation (the reward/done/truncation of the transition *into* the step; see
  `seed_graph.nodes.learner.agent_states`), action (taken at the step), and `core_state`:
  the recurrent state (flattened, float32) before the first non-leading step. The state is
  appended only at the steps where a sequence begins, so it costs one vector per sequence.
"""

import dataclasses
import threading
from typing import Callable, Dict, List, Optional, Sequence

import numpy as np
import reverb
import tensorflow as tf

STEP_FIELDS = ('observation', 'prev_action', 'reward', 'done', 'truncation', 'action')
_STEP_DTYPES = {'prev_action': np.int32, 'reward': np.float32, 'done': bool,
                'truncation': bool, 'action': np.int32}


@dataclasses.dataclass(frozen=True)
class SequenceLayout:
  burn_in: int
  unroll_length: int
  stack: int = 1

  @property
  def sequence_length(self) -> int:
    """Steps the network sees per sequence: burn-in + unroll + bootstrap step."""
    return self.burn_in + self.unroll_length + 1

  @property
  def leading(self) -> int:
    return self.stack - 1

  @property
  def stored_length(self) -> int:
    return self.sequence_length + self.leading

  @property
  def period(self) -> int:
    """Steps between the starts of consecutive sequences of one environment."""
    return self.unroll_length


def table_signature(layout: SequenceLayout, observation_shape: Sequence[int],
                    observation_dtype, state_size: int) -> Dict[str, tf.TensorSpec]:
  length = layout.stored_length
  return {
      'observation': tf.TensorSpec([length] + list(observation_shape),
                                   tf.as_dtype(np.dtype(observation_dtype))),
      'prev_action': tf.TensorSpec([length], tf.int32),
      'reward': tf.TensorSpec([length], tf.float32),
      'done': tf.TensorSpec([length], tf.bool),
      'truncation': tf.TensorSpec([length], tf.bool),
      'action': tf.TensorSpec([length], tf.int32),
      'core_state': tf.TensorSpec([state_size], tf.float32),
  }


# priority_fn(sequences) -> [K] priorities; `sequences` maps 'action', 'reward', 'done',
# 'truncation' to `[sequence_length, K]` and 'q_values' to `[sequence_length, K, A]`.
PriorityFn = Callable[[Dict[str, np.ndarray]], np.ndarray]


class SequenceWriter:
  """Writes training steps of many environments into a Reverb table as sequences."""

  def __init__(self, client: reverb.Client, table: str, num_envs: int,
               layout: SequenceLayout, num_actions: int, chunk_length: int,
               priority_fn: PriorityFn, stop_event: Optional[threading.Event] = None,
               flush_timeout_ms: int = 500):
    self._client = client
    self._table = table
    self._layout = layout
    self._chunk_length = min(chunk_length, layout.stored_length)
    self._priority_fn = priority_fn
    self._stop = stop_event or threading.Event()
    self._flush_timeout_ms = flush_timeout_ms
    self._writers: List[Optional[reverb.TrajectoryWriter]] = [None] * num_envs
    self.steps = np.zeros(num_envs, np.int64)  # Steps appended since the env's run began.
    length = layout.sequence_length
    # What the initial priority needs, for the last `sequence_length` steps (a ring).
    self._ring = {
        'action': np.zeros((num_envs, length), np.int32),
        'reward': np.zeros((num_envs, length), np.float32),
        'done': np.zeros((num_envs, length), bool),
        'truncation': np.zeros((num_envs, length), bool),
        'q_values': np.zeros((num_envs, length, num_actions), np.float32),
    }
    self.items_created = 0

  def _writer(self, env_id: int) -> reverb.TrajectoryWriter:
    writer = self._writers[env_id]
    if writer is None:
      keep = self._layout.stored_length
      writer = self._client.trajectory_writer(num_keep_alive_refs=keep)
      for field in STEP_FIELDS:
        writer.configure((field,), num_keep_alive_refs=keep,
                         max_chunk_length=self._chunk_length)
      writer.configure(('core_state',), num_keep_alive_refs=keep, max_chunk_length=1)
      self._writers[env_id] = writer
    return writer

  def _wait(self, call):
    """Runs a blocking writer call in slices, giving up only when stopping."""
    while True:
      try:
        call(self._flush_timeout_ms)
        return True
      except reverb.errors.DeadlineExceededError:
        if self._stop.is_set():
          return False

  def reset(self, env_ids: Sequence[int]):
    """Starts these environments afresh (a new actor run): no sequence spans the reset."""
    for env_id in np.asarray(env_ids).tolist():
      writer = self._writers[env_id]
      if writer is not None and self.steps[env_id]:
        self._wait(lambda t, w=writer: w.end_episode(clear_buffers=True, timeout_ms=t))
      self.steps[env_id] = 0

  def append(self, env_ids: np.ndarray, steps: Dict[str, np.ndarray],
             q_values: np.ndarray, states_before: np.ndarray) -> int:
    """Appends one step for each of `env_ids`; creates the sequences that completed.

    Args:
      env_ids: `[K]` training environment ids, each at most once.
      steps: STEP_FIELDS -> `[K, ...]`.
      q_values: `[K, A]` Q values computed at this step (for the initial priority).
      states_before: `[K, S]` flattened recurrent state before this step.

    Returns:
      The number of sequences created.
    """
    layout = self._layout
    length = layout.sequence_length
    steps = dict(steps)
    for field, dtype in _STEP_DTYPES.items():
      steps[field] = np.asarray(steps[field], dtype)
    states_before = np.asarray(states_before, np.float32)
    due = []
    for i, env_id in enumerate(env_ids.tolist()):
      writer = self._writer(env_id)
      index = int(self.steps[env_id])
      step = {field: steps[field][i] for field in STEP_FIELDS}
      starts_sequence = (index >= layout.leading and
                         (index - layout.leading) % layout.period == 0)
      step['core_state'] = states_before[i] if starts_sequence else None
      writer.append(step)
      slot = index % length
      for field in ('action', 'reward', 'done', 'truncation'):
        self._ring[field][env_id, slot] = steps[field][i]
      self._ring['q_values'][env_id, slot] = q_values[i]
      index += 1
      self.steps[env_id] = index
      if index >= layout.stored_length and (index - layout.stored_length) % layout.period == 0:
        due.append(env_id)
    if not due:
      return 0

    # Ring slots of each due sequence in time order (its last step is the newest).
    order = (self.steps[due][np.newaxis, :] - length + np.arange(length)[:, np.newaxis]) % length
    due_array = np.asarray(due)
    sequences = {field: values[due_array[np.newaxis, :], order]
                 for field, values in self._ring.items()}
    priorities = np.asarray(self._priority_fn(sequences), np.float64)
    for env_id, priority in zip(due, priorities.tolist()):
      writer = self._writers[env_id]
      history = writer.history
      trajectory = {field: history[field][-layout.stored_length:] for field in STEP_FIELDS}
      trajectory['core_state'] = history['core_state'][-length]
      writer.create_item(self._table, priority=priority, trajectory=trajectory)
      self.items_created += 1
      # At most one unconfirmed item per environment: a rate-limited table blocks here,
      # and so holds back inference and the actors (back-pressure).
      self._wait(lambda t, w=writer: w.flush(block_until_num_items=1, timeout_ms=t))
    return len(due)

  def flush_all(self):
    """Sends every pending item (forcing partial chunks); for checkpoints and shutdown."""
    for writer in self._writers:
      if writer is not None:
        self._wait(lambda t, w=writer: w.flush(timeout_ms=t))

  def close(self):
    for env_id, writer in enumerate(self._writers):
      if writer is not None:
        writer.close()
        self._writers[env_id] = None
