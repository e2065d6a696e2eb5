"""R2D2 in pure TensorFlow: value rescaling, n-step double-Q targets, priorities, the loss.

Time-major conventions (the same as `seed_graph.nodes.learner.agent_states`): step `t` of a
sequence holds the observation an environment showed, the reward and `done` of the
transition *into* it, and the action taken at it. So the transition (step t, action t)
earned `rewards[t + 1]` and ended its episode if `dones[t + 1]`; `truncations[t + 1]` marks
an end by time limit (the observation after it is lost, actors reset automatically).

Truncated episodes: the value after a time limit is unknown (its observation is not
kept), so the few steps whose n-step window reaches a truncation before any terminal
state get no target (their loss mask is 0) instead of a wrong "terminal" target.
"""

import collections

import numpy as np
import tensorflow as tf


def value_rescale(x: tf.Tensor, eps: float = 1e-3):
  """h(x) = sign(x) * (sqrt(|x| + 1) - 1) + eps * x (Pohlen et al. 2018), element-wise."""
  x = tf.convert_to_tensor(x)
  return tf.sign(x) * (tf.sqrt(tf.abs(x) + 1.0) - 1.0) + eps * x


def inverse_value_rescale(x: tf.Tensor, eps: float = 1e-3):
  """The exact inverse of `value_rescale` (closed form of h^-1), element-wise."""
  x = tf.convert_to_tensor(x)
  # With v = sqrt(|x| + 1) - 1, |h| = eps v^2 + (1 + 2 eps) v: solve the quadratic for v
  # in the form without cancellation, then |x| = (v + 1)^2 - 1 = v (v + 2).
  y = tf.abs(x)
  b = 1.0 + 2.0 * eps
  v = 2.0 * y / (b + tf.sqrt(b * b + 4.0 * eps * y))
  return tf.sign(x) * v * (v + 2.0)


def compute_priorities(abs_td_errors, eta=0.9):
  """[T, B] absolute TD errors -> [B]: eta * max_t + (1 - eta) * mean_t."""
  abs_td_errors = tf.convert_to_tensor(abs_td_errors)
  return (eta * tf.reduce_max(abs_td_errors, axis=0) +
          (1.0 - eta) * tf.reduce_mean(abs_td_errors, axis=0))


def n_step_targets(rewards: tf.Tensor, dones: tf.Tensor, truncations: tf.Tensor,
                   bootstrap_values, discount: float, n):
  """Raw (not rescaled) n-step returns with bootstrapping, time-major.

  Args:
    rewards, dones, truncations: `[T + 1, B]`; index t is the transition into step t.
    bootstrap_values: `[T + 1, B]`, the value to bootstrap from at each step (for double
      Q: Q_target(s, argmax_a Q_online(s, a)), in raw, not rescaled, units).
    discount: the discount per step.
    n: the number of steps; windows reaching past step T bootstrap from step T.

  Returns:
    (targets `[T, B]`, mask `[T, B]` float: 0 where the window hits a truncation first).
  """
  rewards = tf.convert_to_tensor(rewards, tf.float32)
  bootstrap_values = tf.convert_to_tensor(bootstrap_values, tf.float32)
  dones = tf.convert_to_tensor(dones, tf.bool)
  truncations = tf.convert_to_tensor(truncations, tf.bool)
  length = tf.shape(rewards)[0] - 1  # T
  t = tf.range(length)
  batch_shape = tf.shape(rewards[1:])

  returns = tf.zeros(batch_shape, tf.float32)
  alive = tf.ones(batch_shape, tf.bool)
  valid_target = tf.ones(batch_shape, tf.bool)
  for i in range(1, n + 1):
    index = t + i
    in_range = index <= length  # [T]
    clipped = tf.minimum(index, length)
    r = tf.gather(rewards, clipped)
    d = tf.logical_and(tf.gather(dones, clipped), in_range[:, tf.newaxis])
    tr = tf.gather(truncations, clipped)
    use = tf.logical_and(alive, in_range[:, tf.newaxis])
    returns += tf.where(use, (discount ** (i - 1)) * r, 0.0)
    ended = tf.logical_and(alive, d)
    valid_target = tf.logical_and(valid_target, tf.logical_not(tf.logical_and(ended, tr)))
    alive = tf.logical_and(alive, tf.logical_not(d))
  steps = tf.minimum(t + n, length) - t  # m = min(n, T - t), per time step.
  bootstrap = tf.gather(bootstrap_values, t + steps)
  discounts = tf.pow(tf.cast(discount, tf.float32), tf.cast(steps, tf.float32))
  returns += tf.where(alive, discounts[:, tf.newaxis] * bootstrap, 0.0)
  return returns, tf.cast(valid_target, tf.float32)


def importance_weights(probabilities, table_size, exponent=0.6):
  """Prioritized-replay importance-sampling weights (N * P)^-beta, divided by their max."""
  probabilities = tf.convert_to_tensor(probabilities, tf.float64)
  size = tf.cast(table_size, tf.float64)
  weights = tf.pow(size * probabilities, -exponent)
  return tf.cast(weights / tf.reduce_max(weights), tf.float32)


LossTerms = collections.namedtuple(
    'LossTerms', ['loss', 'priorities', 'abs_td_errors', 'mean_q', 'target_mean'])


def r2d2_loss(online_q, target_q, actions: tf.Tensor, rewards: tf.Tensor, dones: tf.Tensor,
              truncations: tf.Tensor, importance_weights_, discount: float = 0.997,
              n_step: int = 5, eta=0.9, rescale_eps: float = 1e-3, over_steps: str = 'sum'):
  """The R2D2 loss on the post-burn-in part of a batch of sequences.

  Args:
    online_q: `[T + 1, B, A]` online-network Q values (rescaled units, with gradient).
    target_q: `[T + 1, B, A]` target-network Q values (rescaled units).
    actions: `[T + 1, B]` actions taken; rewards, dones, truncations `[T + 1, B]`.
    importance_weights_: `[B]`.
    over_steps: 'sum' (R2D2's) or 'mean': how each sequence's `0.5 * td^2` combine over
      its valid steps.

  Returns:
    LossTerms: the scalar loss (each sequence's `0.5 * td^2` combined over its valid
    steps, weighted by `importance_weights_`, averaged over the batch), new priorities
    `[B]` and diagnostics.
  """
  num_actions = tf.shape(online_q)[-1]
  greedy = tf.argmax(tf.stop_gradient(online_q), axis=-1, output_type=tf.int32)
  target_values = tf.reduce_sum(
      tf.stop_gradient(target_q) * tf.one_hot(greedy, num_actions), axis=-1)
  targets, mask = n_step_targets(rewards, dones, truncations,
                                 inverse_value_rescale(target_values, rescale_eps),
                                 discount, n_step)
  targets = tf.stop_gradient(value_rescale(targets, rescale_eps))
  taken = tf.reduce_sum(online_q[:-1] * tf.one_hot(actions[:-1], num_actions), axis=-1)
  td = (targets - taken) * mask
  # Summed over the sequence's steps by default, as R2D2 and SEED RL do. A mean over them
  # makes the gradients T times smaller and Adam's epsilon outweighs them: after 20M
  # frames of atari_cleanrl_r2d2 on Pong with the mean, the median weight's sqrt(v) was
  # 2.2e-6 against an epsilon of 1e-4, so its steps were 2% of the step size.
  per_sequence = 0.5 * tf.reduce_sum(tf.square(td), axis=0)
  if over_steps == 'mean':
    per_sequence /= tf.maximum(tf.reduce_sum(mask, axis=0), 1.0)
  loss = tf.reduce_mean(importance_weights_ * per_sequence)
  abs_td = tf.abs(tf.stop_gradient(td))
  return LossTerms(loss, compute_priorities(abs_td, eta), abs_td,
                   tf.reduce_mean(taken), tf.reduce_mean(targets))


def initial_priorities(sequences, burn_in, discount: float, n_step: int, eta=0.9,
                       rescale_eps: float = 1e-3):
  """Priorities of new sequences from the Q values seen at inference time: the same
  n-step TD errors as training, with the online values as their own target.

  Args:
    sequences: time-major `[T, B]` arrays `reward`, `done`, `truncation`, `action` and
      `q_values` (`[T, B, A]`), T = burn_in + unroll + 1.

  Returns:
    `[B]` priorities (NumPy), at least 1e-6.
  """
  part = {k: v[burn_in:] for k, v in sequences.items()}
  q_values = tf.constant(part['q_values'])
  values = inverse_value_rescale(tf.reduce_max(q_values, axis=-1), rescale_eps)
  targets, mask = n_step_targets(part['reward'], part['done'], part['truncation'], values,
                                 discount, n_step)
  num_actions = q_values.shape[-1]
  taken = tf.reduce_sum(q_values[:-1] * tf.one_hot(part['action'][:-1], num_actions),
                        axis=-1)
  td = tf.abs(value_rescale(targets, rescale_eps) - taken) * mask
  return np.maximum(compute_priorities(td, eta).numpy(), 1e-6)
