"""V-trace's network: the shared recurrent agent (`seed_graph.algos.recurrent`) with a
policy-logits head and a value-baseline head."""

import collections
import sonnet as snt
import tensorflow as tf
from typing import Sequence
import ml_collections

from seed_graph.algos import networks
from seed_graph.algos import recurrent

AgentOutput = collections.namedtuple('AgentOutput', ['policy_logits', 'baseline'])


class ActorCriticAgent(recurrent.RecurrentAgent):
  """A `recurrent.RecurrentCore` with policy-logits and value-baseline heads; `step` and
  `unroll` return `AgentOutput`s."""

  def __init__(self, num_actions: int, torso: snt.Module, lstm_size: int,
               initialization: str = 'fan_in', name='actor_critic'):
    super().__init__(num_actions, torso, lstm_size, name=name)
    # Orthogonal: a near-uniform first policy (gain 0.01), values of unit scale.
    self._policy_head = snt.Linear(
        num_actions, w_init=networks.weight_init(initialization, 0.01), name='policy_logits')
    self._baseline_head = snt.Linear(
        1, w_init=networks.weight_init(initialization, 1.0), name='baseline')

  def _heads(self, core_output: tf.Tensor) -> AgentOutput:
    return AgentOutput(
        policy_logits=self._policy_head(core_output),
        baseline=tf.squeeze(self._baseline_head(core_output), axis=-1))


def make_agent(network_config: ml_collections.ConfigDict, observation_shape: Sequence[int],
               num_actions: int) -> ActorCriticAgent:
  """The actor-critic agent with the torso named by `network_config.torso`."""
  del observation_shape  # Sonnet modules infer input sizes on first call.
  return ActorCriticAgent(num_actions, networks.make_torso(network_config),
                          network_config.lstm_size, network_config.initialization)
