"""The n-step actor-critic as the learner's algorithm (`seed_graph.Algorithm`'s hooks).

Inference samples from the policy for training environments and acts greedily for
evaluation ones. Each training environment's steps are cut into unrolls of
`learner.unroll_length` + 1 steps (the last is the next unroll's first), queued, and
trained in batches: every step's return is its rewards up to the unroll's end plus the
discounted value there, an episode's end cutting it short (a time limit is taken for an
end too: simple, and slightly pessimistic). The agent keeps no recurrent state; the
learner's per-environment state is one unused zero per environment.
"""

import collections
import queue
from typing import Dict, List, Optional

import numpy as np
import sonnet as snt
import tensorflow as tf

import seed_graph as sg

Unroll = collections.namedtuple('Unroll', ['observations', 'actions', 'rewards', 'dones'])


class _PolicyAndValue(snt.Module):
  """The shared torso (`network.torso`) with a policy-logits and a value head."""

  def __init__(self, network_config, num_actions: int):
    super().__init__(name='policy_and_value')
    self._torso = sg.make_torso(network_config)
    self._policy = snt.Linear(num_actions, name='policy_logits')
    self._value = snt.Linear(1, name='value')

  def __call__(self, observations):
    features = self._torso(observations)
    return self._policy(features), tf.squeeze(self._value(features), -1)


class NStepActorCritic(sg.Algorithm):
  """See the module docstring; built by the learner as `NStepActorCritic(config,
  context)`."""

  def __init__(self, config, context: sg.AlgorithmContext):
    self._config = config
    self._devices = context.devices
    self._stop = context.stop_event
    spec = context.spec
    self._num_actions = spec.num_actions
    self.network = _PolicyAndValue(config.network, spec.num_actions)
    self._optimizer = tf.keras.optimizers.Adam(config.learner.learning_rate)
    rows = lambda shape, dtype: tf.zeros((1,) + tuple(shape), dtype)
    self._example_inputs = (rows((), tf.int32), rows((), tf.float32), rows((), tf.bool),
                            rows(spec.observation_shape, spec.observation_dtype),
                            rows((1,), tf.float32), rows((), tf.bool))
    self.network(self._example_inputs[3])  # Creates the variables.
    self._steps: Dict[int, List[tuple]] = collections.defaultdict(list)
    self._unrolls = queue.Queue(maxsize=config.learner.queue_capacity)
    self._pending: List[Unroll] = []
    self._train_fn = tf.function(self._train_step)

  # ---- Inference (batcher threads) ------------------------------------------------

  def example_policy_inputs(self) -> tuple:
    return self._example_inputs

  def act(self, prev_actions, rewards, dones, observations, core_state, is_eval):
    del prev_actions, rewards, dones
    logits, _ = self.network(observations)
    sampled = tf.random.categorical(logits, 1, dtype=tf.int32)[:, 0]
    greedy = tf.argmax(logits, axis=-1, output_type=tf.int32)
    return tf.where(is_eval, greedy, sampled), logits, core_state

  def policy_inputs(self, step, new_run) -> tuple:
    del new_run
    return step.observations, step.is_eval

  def reset(self, env_ids: np.ndarray) -> None:
    for env_id in env_ids:
      self._steps.pop(int(env_id), None)

  def record(self, step, training, prev_actions, actions, extras, states_before) -> None:
    del prev_actions, extras, states_before
    length = self._config.learner.unroll_length + 1
    for row in np.flatnonzero(training):
      steps = self._steps[int(step.env_ids[row])]
      steps.append((step.observations[row], actions[row], step.rewards[row],
                    step.dones[row]))
      if len(steps) == length:
        self._put(Unroll(*(np.stack(column) for column in zip(*steps))))
        del steps[:-1]  # The last step starts the next unroll.

  def _put(self, unroll: Unroll) -> None:
    while not self._stop.is_set():  # Blocks inference while training falls behind.
      try:
        self._unrolls.put(unroll, timeout=0.5)
        return
      except queue.Full:
        continue

  # ---- Training (the learner's main thread) ---------------------------------------

  def next_batch(self) -> Optional[List[Unroll]]:
    while len(self._pending) < self._config.learner.batch_size:
      try:
        self._pending.append(self._unrolls.get(timeout=0.5))
      except queue.Empty:
        return None
    batch, self._pending = self._pending, []
    return batch

  def train(self, batch: List[Unroll]) -> Dict[str, float]:
    # Time-major [T + 1, B, ...] arrays, split over training devices along B.
    stacked = tuple(np.stack(column, axis=1) for column in zip(*batch))
    figures = self._train_fn(self._devices.distribute(stacked, batch_axes=(1, 1, 1, 1)))
    return {name: float(value) for name, value in figures.items()}

  def _loss(self, observations, actions, rewards, dones):
    learner = self._config.learner
    steps, batch = tf.shape(actions)[0], tf.shape(actions)[1]
    logits, values = self.network(tf.reshape(
        observations, tf.concat([[-1], tf.shape(observations)[2:]], 0)))
    logits = tf.reshape(logits, [steps, batch, self._num_actions])
    values = tf.reshape(values, [steps, batch])
    # Step t's transition ends with step t + 1's reward, and ends the episode if step
    # t + 1 starts a new one.
    discounts = learner.discount * (1.0 - tf.cast(dones[1:], tf.float32))
    returns = tf.scan(lambda later, now: now[0] + now[1] * later,
                      (learner.reward_scale * rewards[1:], discounts),
                      initializer=tf.stop_gradient(values[-1]), reverse=True)
    advantages = tf.stop_gradient(returns) - values[:-1]
    log_policy = tf.nn.log_softmax(logits[:-1])
    taken = tf.gather(log_policy, actions[:-1], batch_dims=2)
    policy_loss = -tf.reduce_mean(taken * tf.stop_gradient(advantages))
    value_loss = 0.5 * tf.reduce_mean(tf.square(advantages))
    entropy = -tf.reduce_mean(tf.reduce_sum(tf.exp(log_policy) * log_policy, -1))
    total = (policy_loss + learner.value_cost * value_loss
             - learner.entropy_cost * entropy)
    return total, {'total_loss': total, 'policy_loss': policy_loss,
                   'value_loss': value_loss, 'entropy': entropy}, {}

  def _train_step(self, shards):
    means, _, gradient_norm, applied = self._devices.gradient_step(
        self._loss, self.network.trainable_variables, self._optimizer,
        self._config.learner.gradient_clip_norm, shards)
    return {**means, 'gradient_norm': gradient_norm,
            'update_applied': tf.cast(applied, tf.float32)}

  def checkpoint_items(self) -> Dict[str, tf.Module]:
    return {'network': self.network, 'optimizer': self._optimizer}

  def stats(self) -> Dict[str, Optional[float]]:
    return {'unroll_queue_size': self._unrolls.qsize()}
