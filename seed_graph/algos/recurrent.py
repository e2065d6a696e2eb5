"""The recurrent agent every algorithm's network is: a torso, the previous action and
reward, an LSTM (or none), then the algorithm's heads.

An agent sees, at every step, the observation, the previous action (one-hot) and the
previous reward, as in SEED RL. Its recurrent state is reset to zero wherever `done`
is set: the observation at such a step is the first of a new episode. `RecurrentAgent`
is the skeleton (state, `step`, `unroll`); an algorithm's network subclasses it with its
heads' modules and `_heads`, which reads them from the core's output.
"""

from typing import Any

import sonnet as snt
import tensorflow as tf


class NoMemory(snt.RNNCore):
  """A core that passes its input through: a feed-forward agent (`lstm_size=0`).

  Its state is one zero per environment, so the learner's per-environment state table,
  the unrolls and the checkpoints keep one shape for every agent.
  """

  def __call__(self, inputs: tf.Tensor, prev_state: Any):
    return inputs, prev_state

  def initial_state(self, batch_size: int):
    return tf.zeros([batch_size, 1])


class RecurrentCore(snt.Module):
  """torso(observation) ++ one-hot(previous action) ++ clipped previous reward -> LSTM.

  The state is reset to zero wherever `done` is set. With `lstm_size=0` the LSTM is
  `NoMemory`: the agent sees only the current (possibly frame-stacked) observation.
  """

  def __init__(self, num_actions: int, torso: snt.Module, lstm_size: int,
               name='recurrent_core'):
    super().__init__(name=name)
    self._num_actions = num_actions
    self._torso = torso
    self._lstm = snt.LSTM(lstm_size) if lstm_size else NoMemory()

  def initial_state(self, batch_size: int):
    return self._lstm.initial_state(batch_size)

  @property
  def torso(self) -> snt.Module:
    return self._torso

  def _embed(self, prev_actions: tf.Tensor, rewards: tf.Tensor, observations: tf.Tensor):
    features = self._torso(observations)
    one_hot_actions = tf.one_hot(prev_actions, self._num_actions)
    clipped_rewards = tf.clip_by_value(tf.cast(rewards, tf.float32), -1.0, 1.0)
    return tf.concat([features, one_hot_actions, clipped_rewards[:, tf.newaxis]], axis=-1)

  @staticmethod
  def _reset_where_done(core_state: Any, dones: tf.Tensor):
    keep = 1.0 - tf.cast(dones, tf.float32)[:, tf.newaxis]
    return tf.nest.map_structure(lambda s: s * keep, core_state)

  def step(self, prev_actions: tf.Tensor, rewards: tf.Tensor, dones: tf.Tensor,
           observations: tf.Tensor, core_state: Any):
    """One step for `[B]` environments: (outputs `[B, H]`, new state)."""
    embedding = self._embed(prev_actions, rewards, observations)
    return self._lstm(embedding, self._reset_where_done(core_state, dones))

  def unroll(self, prev_actions: tf.Tensor, rewards: tf.Tensor, dones: tf.Tensor,
             observations: tf.Tensor, core_state: Any):
    """Time-major unroll of `[T, B]` inputs from `core_state` (the state before step 0).

    Returns (outputs `[T * B, H]`, time-major rows, final state).
    """
    num_steps, batch_size = tf.shape(prev_actions)[0], tf.shape(prev_actions)[1]
    flat = lambda x: tf.reshape(x, tf.concat([[num_steps * batch_size], tf.shape(x)[2:]], 0))
    # The torso runs once over all T * B observations.
    embeddings = self._embed(flat(prev_actions), flat(rewards), flat(observations))
    embeddings = tf.reshape(
        embeddings, tf.concat([[num_steps, batch_size], tf.shape(embeddings)[1:]], 0))
    # The unroll length is static inside the learners' tf.functions, so a Python loop
    # builds a fixed graph; the reset mask keeps episodes inside an unroll apart.
    outputs = []
    for t in range(prev_actions.shape[0]):
      output, core_state = self._lstm(embeddings[t],
                                      self._reset_where_done(core_state, dones[t]))
      outputs.append(output)
    return tf.concat(outputs, axis=0), core_state


def unflatten_time(x: tf.Tensor, num_steps: int, batch_size: int):
  """`[T * B, ...]` -> `[T, B, ...]`."""
  return tf.reshape(x, tf.concat([[num_steps, batch_size], tf.shape(x)[1:]], 0))


class RecurrentAgent(snt.Module):
  """A `RecurrentCore` and heads. Subclasses make the heads' modules in `__init__` (after
  this one's, as attributes of their own, which name them in checkpoints) and return
  their outputs for `[N, H]` core outputs from `_heads`, one tensor or a nest of them."""

  def __init__(self, num_actions: int, torso: snt.Module, lstm_size: int, name: str):
    super().__init__(name=name)
    self._core = RecurrentCore(num_actions, torso, lstm_size)

  def _heads(self, core_output: tf.Tensor) -> Any:
    raise NotImplementedError

  def initial_state(self, batch_size: int):
    return self._core.initial_state(batch_size)

  def torso_features(self, observations: tf.Tensor) -> tf.Tensor:
    """The torso's output for `[B, ...]` observations (for diagnostics)."""
    return self._core.torso(observations)

  def step(self, prev_actions: tf.Tensor, rewards: tf.Tensor, dones: tf.Tensor,
           observations: tf.Tensor, core_state: Any):
    """One step for `[B]` environments: (the heads' `[B, ...]` outputs, new state)."""
    core_output, core_state = self._core.step(prev_actions, rewards, dones, observations,
                                              core_state)
    return self._heads(core_output), core_state

  def unroll(self, prev_actions: tf.Tensor, rewards: tf.Tensor, dones: tf.Tensor,
             observations: tf.Tensor, core_state: Any):
    """Time-major unroll of `[T, B]` inputs from `core_state` (the state before step 0):
    (the heads' `[T, B, ...]` outputs, final state). T must be static (a Python loop)."""
    core_outputs, core_state = self._core.unroll(prev_actions, rewards, dones,
                                                 observations, core_state)
    num_steps, batch_size = tf.shape(prev_actions)[0], tf.shape(prev_actions)[1]
    outputs = tf.nest.map_structure(
        lambda x: unflatten_time(x, num_steps, batch_size), self._heads(core_outputs))
    return outputs, core_state
