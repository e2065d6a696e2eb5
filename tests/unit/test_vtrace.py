"""V-trace against a plain NumPy version of the paper's recursion."""

import numpy as np
import pytest
import tensorflow as tf

from seed_graph.algos.vtrace import returns as vtrace


def numpy_vtrace(log_rhos, discounts, rewards, values, bootstrap_value,
                 clip_rho_threshold, clip_pg_rho_threshold, lambda_):
  """Direct evaluation of v_s = V(x_s) + sum_t gamma^(t-s) (prod c_i) delta_t, step by step."""
  num_steps, batch = values.shape
  rhos = np.exp(log_rhos)
  clipped = np.minimum(clip_rho_threshold, rhos) if clip_rho_threshold else rhos
  cs = lambda_ * np.minimum(1.0, rhos)
  values_next = np.concatenate([values[1:], bootstrap_value[None]], axis=0)
  vs = np.zeros_like(values)
  for s in range(num_steps):
    total = np.zeros(batch)
    trace = np.ones(batch)  # prod_{i=s}^{t-1} gamma_i c_i
    for t in range(s, num_steps):
      delta = clipped[t] * (rewards[t] + discounts[t] * values_next[t] - values[t])
      total += trace * delta
      trace = trace * discounts[t] * cs[t]
    vs[s] = values[s] + total
  vs_next = np.concatenate([vs[1:], bootstrap_value[None]], axis=0)
  pg_rhos = np.minimum(clip_pg_rho_threshold, rhos) if clip_pg_rho_threshold else rhos
  advantages = pg_rhos * (rewards + discounts * vs_next - values)
  return vs, advantages


@pytest.mark.parametrize('clip_rho,clip_pg_rho,lambda_', [
    (1.0, 1.0, 1.0), (3.7, 2.2, 0.9), (None, None, 1.0), (1.0, None, 0.5)])
def test_matches_numpy_reference(clip_rho, clip_pg_rho, lambda_):
  rng = np.random.default_rng(7)
  num_steps, batch = 9, 5
  log_rhos = rng.normal(scale=0.8, size=(num_steps, batch))
  discounts = np.full((num_steps, batch), 0.97)
  discounts[rng.random((num_steps, batch)) < 0.2] = 0.0  # Episode ends inside the unroll.
  discounts[3, 1] = 0.0
  rewards = rng.normal(size=(num_steps, batch))
  values = rng.normal(size=(num_steps, batch))
  bootstrap_value = rng.normal(size=batch)

  result = vtrace.from_importance_weights(
      log_rhos, discounts, rewards, values, bootstrap_value,
      clip_rho_threshold=clip_rho, clip_pg_rho_threshold=clip_pg_rho, lambda_=lambda_)
  expected_vs, expected_adv = numpy_vtrace(
      log_rhos, discounts, rewards, values, bootstrap_value, clip_rho, clip_pg_rho, lambda_)
  np.testing.assert_allclose(result.vs.numpy(), expected_vs, rtol=1e-4, atol=1e-4)
  np.testing.assert_allclose(result.pg_advantages.numpy(), expected_adv, rtol=1e-4, atol=1e-4)


def test_on_policy_lambda_one_is_discounted_return():
  # With pi == mu and lambda 1, v_s is the n-step bootstrapped discounted return.
  rewards = np.array([[1.0], [2.0], [3.0]])
  discounts = np.array([[0.5], [0.0], [0.5]])  # Episode ends after step 1.
  values = np.array([[10.0], [20.0], [30.0]])
  result = vtrace.from_importance_weights(
      np.zeros((3, 1)), discounts, rewards, values, np.array([4.0]))
  np.testing.assert_allclose(result.vs.numpy()[:, 0], [1 + 0.5 * 2, 2.0, 3 + 0.5 * 4])


def test_gradients_are_stopped():
  values = tf.Variable(np.ones((4, 2), np.float32))
  with tf.GradientTape() as tape:
    result = vtrace.from_importance_weights(
        tf.zeros((4, 2)), tf.fill((4, 2), 0.9), tf.ones((4, 2)), values, tf.zeros(2))
    loss = tf.reduce_sum(result.vs) + tf.reduce_sum(result.pg_advantages)
  assert tape.gradient(loss, values) is None
