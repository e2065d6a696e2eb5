"""A batch whose loss or gradients are not finite is skipped, not trained on."""

import numpy as np
import tensorflow as tf

from seed_graph.algos import optimization
from seed_graph.nodes.learner import shell as learner_lib
from seed_graph.algos.vtrace import learning as vtrace_learner
from tests import helpers


def test_nonfinite_gradients_leave_variables_and_optimizer_untouched():
  variable = tf.Variable([1.0, 2.0])
  optimizer = tf.keras.optimizers.Adam(0.1)

  @tf.function
  def step(scale):
    with tf.GradientTape() as tape:
      loss = tf.reduce_sum(variable * scale)
    gradients = tape.gradient(loss, [variable])
    return optimization.apply_if_finite(
        gradients, loss, 1.0, lambda g: optimizer.apply_gradients(zip(g, [variable])))

  _, applied = step(tf.constant([1.0, np.nan]))
  assert not applied and optimizer.iterations.numpy() == 0
  np.testing.assert_array_equal(variable.numpy(), [1.0, 2.0])
  norm, applied = step(tf.constant([3.0, 4.0]))
  assert applied and norm.numpy() == 5.0 and optimizer.iterations.numpy() == 1
  assert not np.allclose(variable.numpy(), [1.0, 2.0])


def test_vtrace_skips_a_batch_with_nan_rewards(tmp_path):
  config = helpers.small_cartpole_config(tmp_path, **{'learner.queue_capacity': 1000})
  learner = learner_lib.Learner(config, vtrace_learner.VTrace)
  algorithm = learner.algorithm
  rng = np.random.default_rng(0)
  batch = helpers.queued_vtrace_unrolls(learner, rng)
  before = [v.numpy().copy() for v in algorithm.agent.trainable_variables]
  batch[0].steps['rewards'][2] = np.nan  # Past the edge's own check, e.g. a bug.
  figures = algorithm.train(batch)
  assert figures['update_applied'] is False
  for old, variable in zip(before, algorithm.agent.trainable_variables):
    np.testing.assert_array_equal(old, variable.numpy())
  batch[0].steps['rewards'][2] = 0.0
  figures = algorithm.train(batch)
  assert figures['update_applied'] is True
  assert 0 < figures['core_state_magnitude'] < 10  # A fresh LSTM is far from saturation.
