"""A batch whose loss or gradients are not finite is skipped, not trained on."""

import numpy as np
import tensorflow as tf

from seed_graph.algos import optimization
from seed_graph.inference import messages
from seed_graph.nodes import learner as learner_lib
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
  learner = learner_lib.Learner(config, vtrace_learner.VTraceLearner)
  algorithm = learner.algorithm
  rng = np.random.default_rng(0)
  batch = _queued_unrolls(learner, rng)
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



def _queued_unrolls(learner, rng):
  """Four unrolls of 5 (+1) steps from the learner's own inference, as in a run."""
  env_ids = np.arange(4, dtype=np.int32)
  for _ in range(6):
    learner.infer_batch([messages.InferenceRequest(
        env_ids, np.full(4, 3, np.int64), rng.random(4).astype(np.float32),
        np.zeros(4, bool), np.zeros(4, bool), rng.normal(size=(4, 4)).astype(np.float32),
        False, np.zeros(4, bool))])
  return [learner.algorithm.unroll_queue.get_nowait() for _ in range(4)]


def test_vtrace_trains_each_batch_for_epochs_of_minibatches(tmp_path):
  """`learner.epochs` x `learner.minibatches` gradient steps per batch (APPO's reuse)."""
  config = helpers.small_cartpole_config(tmp_path, **{
      'learner.queue_capacity': 1000, 'learner.epochs': 3, 'learner.minibatches': 2,
      'learner.policy_clip': 0.1, 'learner.normalize_advantages': True})
  learner = learner_lib.Learner(config, vtrace_learner.VTraceLearner)
  optimizer = learner.algorithm.checkpoint_items()['optimizer']
  batch = _queued_unrolls(learner, np.random.default_rng(1))
  figures = learner.algorithm.train(batch)
  assert figures['update_applied'] is True and np.isfinite(figures['total_loss'])
  assert optimizer.iterations.numpy() == 6
  learner.algorithm.train(batch)
  assert optimizer.iterations.numpy() == 12
