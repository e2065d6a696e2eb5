"""Sonnet 2 recurrent Q networks for R2D2: a torso, an LSTM and dueling heads.

Like the actor-critic agents, the network sees the observation, the previous action
(one-hot) and the previous reward (clipped to [-1, 1]) at every step, and resets its
recurrent state to zero wherever `done` is set.
"""

from typing import Any, Sequence

import sonnet as snt
import tensorflow as tf
import ml_collections

from seed_graph.algos import networks


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


class DuelingLSTMQNetwork(snt.Module):
  """A `networks.RecurrentCore` (torso, previous action and reward, LSTM) with dueling
  Q heads."""

  def __init__(self, num_actions: int, torso: snt.Module, lstm_size: int,
               head_hidden_size: int, name='dueling_lstm_q'):
    super().__init__(name=name)
    self._core = networks.RecurrentCore(num_actions, torso, lstm_size)
    self._head = DuelingHead(num_actions, head_hidden_size)

  def initial_state(self, batch_size: int):
    return self._core.initial_state(batch_size)

  def step(self, prev_actions: tf.Tensor, rewards: tf.Tensor, dones: tf.Tensor,
           observations: tf.Tensor, core_state: Any):
    """One step for `[B]` environments: (Q values `[B, A]`, new state)."""
    output, core_state = self._core.step(prev_actions, rewards, dones, observations,
                                         core_state)
    return self._head(output), core_state

  def unroll(self, prev_actions: tf.Tensor, rewards: tf.Tensor, dones: tf.Tensor,
             observations: tf.Tensor, core_state: Any):
    """Time-major unroll of `[T, B]` inputs from the state before step 0:
    (Q values `[T, B, A]`, final state). T must be static (a Python loop)."""
    outputs, core_state = self._core.unroll(prev_actions, rewards, dones, observations,
                                            core_state)
    num_steps, batch_size = tf.shape(prev_actions)[0], tf.shape(prev_actions)[1]
    return networks.unflatten_time(self._head(outputs), num_steps, batch_size), core_state


def make_q_network(network_config: ml_collections.ConfigDict,
                   num_actions: int) -> DuelingLSTMQNetwork:
  """The torso named by `network_config.torso` ('mlp' for vectors; 'atari' or 'resnet'
  for images), the LSTM and dueling heads."""
  return DuelingLSTMQNetwork(num_actions, networks.make_torso(network_config),
                             network_config.lstm_size, network_config.head_hidden_size)


def state_sizes(network: DuelingLSTMQNetwork) -> Sequence[int]:
  """Sizes of the flattened recurrent-state components."""
  return [int(s.shape[-1]) for s in tf.nest.flatten(network.initial_state(1))]
