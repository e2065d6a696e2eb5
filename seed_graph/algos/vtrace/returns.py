"""V-trace off-policy correction (Espeholt et al., 2018, "IMPALA"), pure TensorFlow.

All tensors are time-major: `[T, B]` (or `[T, B, ...]`), T the unroll length.
The targets follow the paper's recursion, computed backwards in time:

    v_s - V(x_s) = delta_s + gamma_s * c_s * (v_{s+1} - V(x_{s+1}))
    delta_s      = rho_s * (r_s + gamma_s * V(x_{s+1}) - V(x_s))

with rho_s = min(clip_rho_threshold, pi/mu) and c_s = lambda_ * min(1, pi/mu).
"""

import collections

import tensorflow as tf

VTraceReturns = collections.namedtuple('VTraceReturns', ['vs', 'pg_advantages'])


def from_importance_weights(log_rhos: tf.Tensor, discounts: tf.Tensor, rewards: tf.Tensor,
                            values: tf.Tensor, bootstrap_value: tf.Tensor,
                            clip_rho_threshold: float = 1.0,
                            clip_pg_rho_threshold: float = 1.0, lambda_: float = 1.0):
  """V-trace targets and policy-gradient advantages from log importance weights.

  Args:
    log_rhos: `[T, B]` log(pi(a_t|x_t) / mu(a_t|x_t)) of the taken actions.
    discounts: `[T, B]` discount applied after step t (0 where the episode ended).
    rewards: `[T, B]` reward received after the action at step t.
    values: `[T, B]` value estimates V(x_t) under the learner's policy.
    bootstrap_value: `[B]` V(x_T), the value after the last step.
    clip_rho_threshold: clip of the importance weight in the value targets
      (None: no clipping).
    clip_pg_rho_threshold: clip of the importance weight in the policy-gradient
      advantages (None: no clipping).
    lambda_: mixing parameter of the trace coefficients c_t.

  Returns:
    VTraceReturns(vs `[T, B]`, pg_advantages `[T, B]`), both with stopped gradients.
  """
  log_rhos = tf.convert_to_tensor(log_rhos, dtype=tf.float32)
  discounts = tf.convert_to_tensor(discounts, dtype=tf.float32)
  rewards = tf.convert_to_tensor(rewards, dtype=tf.float32)
  values = tf.convert_to_tensor(values, dtype=tf.float32)
  bootstrap_value = tf.convert_to_tensor(bootstrap_value, dtype=tf.float32)
  log_rhos.shape.assert_has_rank(values.shape.rank)
  discounts.shape.assert_is_compatible_with(values.shape)
  rewards.shape.assert_is_compatible_with(values.shape)
  bootstrap_value.shape.assert_is_compatible_with(values.shape[1:])

  rhos = tf.exp(log_rhos)
  if clip_rho_threshold is not None:
    clipped_rhos = tf.minimum(float(clip_rho_threshold), rhos)
  else:
    clipped_rhos = rhos
  cs = float(lambda_) * tf.minimum(1.0, rhos)

  values_next = tf.concat([values[1:], bootstrap_value[tf.newaxis]], axis=0)
  deltas = clipped_rhos * (rewards + discounts * values_next - values)

  # Backward scan of acc_s = delta_s + gamma_s * c_s * acc_{s+1}, acc_T = 0.
  def step(acc, elems):
    delta, discount, c = elems
    return delta + discount * c * acc

  vs_minus_values = tf.scan(
      step, (deltas, discounts, cs),
      initializer=tf.zeros_like(bootstrap_value),
      reverse=True)
  vs = vs_minus_values + values

  vs_next = tf.concat([vs[1:], bootstrap_value[tf.newaxis]], axis=0)
  if clip_pg_rho_threshold is not None:
    clipped_pg_rhos = tf.minimum(float(clip_pg_rho_threshold), rhos)
  else:
    clipped_pg_rhos = rhos
  pg_advantages = clipped_pg_rhos * (rewards + discounts * vs_next - values)
  return VTraceReturns(
      vs=tf.stop_gradient(vs), pg_advantages=tf.stop_gradient(pg_advantages))
