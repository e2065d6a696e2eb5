"""V-trace's network: the shared recurrent core (`seed_graph.algos.networks`) with a
policy-logits head and a value-baseline head."""

import collections
import sonnet as snt
import tensorflow as tf
from typing import Any, Sequence
import ml_collections

from seed_graph.algos import networks

AgentOutput = collections.namedtuple('AgentOutput', ['policy_logits', 'baseline'])


class ActorCriticAgent(snt.Module):
  """A `networks.RecurrentCore` with policy-logits and value-baseline heads."""

  def __init__(self, num_actions: int, torso: snt.Module, lstm_size: int,
               initialization: str = 'fan_in', name='actor_critic'):
    super().__init__(name=name)
    self._core = networks.RecurrentCore(num_actions, torso, lstm_size)
    # Orthogonal: a near-uniform first policy (gain 0.01), values of unit scale.
    self._policy_head = snt.Linear(
        num_actions, w_init=networks.weight_init(initialization, 0.01), name='policy_logits')
    self._baseline_head = snt.Linear(
        1, w_init=networks.weight_init(initialization, 1.0), name='baseline')

  def initial_state(self, batch_size: int):
    return self._core.initial_state(batch_size)

  def torso_features(self, observations: tf.Tensor):
    """The torso's output for `[B, ...]` observations (for diagnostics)."""
    return self._core.torso(observations)

  def _heads(self, core_output: tf.Tensor):
    return AgentOutput(
        policy_logits=self._policy_head(core_output),
        baseline=tf.squeeze(self._baseline_head(core_output), axis=-1))

  def step(self, prev_actions: tf.Tensor, rewards: tf.Tensor, dones: tf.Tensor,
           observations: tf.Tensor, core_state: Any):
    """One step for a batch `[B]` of environments. Returns (AgentOutput, new state)."""
    core_output, core_state = self._core.step(prev_actions, rewards, dones, observations,
                                              core_state)
    return self._heads(core_output), core_state

  def unroll(self, prev_actions: tf.Tensor, rewards: tf.Tensor, dones: tf.Tensor,
             observations: tf.Tensor, core_state: Any):
    """Time-major unroll over `[T, B]` inputs from `core_state` (the state before step 0).

    Returns (AgentOutput with `[T, B, ...]` fields, final state).
    """
    core_outputs, core_state = self._core.unroll(prev_actions, rewards, dones,
                                                 observations, core_state)
    num_steps, batch_size = tf.shape(prev_actions)[0], tf.shape(prev_actions)[1]
    outputs = tf.nest.map_structure(
        lambda x: networks.unflatten_time(x, num_steps, batch_size), self._heads(core_outputs))
    return outputs, core_state


def make_agent(network_config: ml_collections.ConfigDict, observation_shape: Sequence[int],
               num_actions: int) -> ActorCriticAgent:
  """The actor-critic agent with the torso named by `network_config.torso`."""
  del observation_shape  # Sonnet modules infer input sizes on first call.
  return ActorCriticAgent(num_actions, networks.make_torso(network_config),
                          network_config.lstm_size, network_config.initialization)
