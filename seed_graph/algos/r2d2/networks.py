"""Sonnet 2 recurrent Q networks for R2D2: a torso, an LSTM and dueling heads.

Like the actor-critic agents, the network sees the observation, the previous action
(one-hot) and the previous reward (clipped to [-1, 1]) at every step, and resets its
recurrent state to zero wherever `done` is set.
"""

from typing import Sequence

import sonnet as snt
import tensorflow as tf
import ml_collections

from seed_graph.algos import networks
from seed_graph.algos import recurrent


class DuelingHead(snt.Module):
  """Q = V + A - mean(A), each stream a hidden layer then a linear output."""

  def __init__(self, num_actions: int, hidden_size: int, name='dueling_head'):
    super().__init__(name=name)
    self._value = snt.nets.MLP([hidden_size, 1], name='value')
    self._advantage = snt.nets.MLP([hidden_size, num_actions], name='advantage')

  def __call__(self, x: tf.Tensor):
    value = self._value(x)
    advantage = self._advantage(x)
    return value + advantage - tf.reduce_mean(advantage, axis=-1, keepdims=True)


class DuelingLSTMQNetwork(recurrent.RecurrentAgent):
  """A `recurrent.RecurrentCore` (torso, previous action and reward, LSTM) with dueling
  Q heads; `step` and `unroll` return Q values (`[B, A]`, `[T, B, A]`)."""

  def __init__(self, num_actions: int, torso: snt.Module, lstm_size: int,
               head_hidden_size: int, name='dueling_lstm_q'):
    super().__init__(num_actions, torso, lstm_size, name=name)
    self._head = DuelingHead(num_actions, head_hidden_size)

  def _heads(self, core_output: tf.Tensor) -> tf.Tensor:
    return self._head(core_output)


def make_q_network(network_config: ml_collections.ConfigDict,
                   num_actions: int) -> DuelingLSTMQNetwork:
  """The torso named by `network_config.torso` ('mlp' for vectors; 'atari' or 'resnet'
  for images), the LSTM and dueling heads."""
  return DuelingLSTMQNetwork(num_actions, networks.make_torso(network_config),
                             network_config.lstm_size, network_config.head_hidden_size)


def state_sizes(network: DuelingLSTMQNetwork) -> Sequence[int]:
  """Sizes of the flattened recurrent-state components."""
  return [int(s.shape[-1]) for s in tf.nest.flatten(network.initial_state(1))]
