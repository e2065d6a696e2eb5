"""V-trace trained like APPO: each batch for epochs of minibatches, with PPO's clipped
surrogate, and the figures that show how far off-policy its data is."""

import numpy as np
import pytest

from seed_graph.algos.vtrace import learning as vtrace_learner
from seed_graph.nodes.learner import shell as learner_lib
from tests import helpers


def _learner(tmp_path, **overrides):
  config = helpers.small_cartpole_config(tmp_path, **{
      'learner.queue_capacity': 1000, 'learner.policy_clip': 0.1, **overrides})
  return learner_lib.Learner(config, vtrace_learner.VTrace)


def test_vtrace_trains_each_batch_for_epochs_of_minibatches(tmp_path):
  """`learner.epochs` x `learner.minibatches` gradient steps per batch (APPO's reuse)."""
  learner = _learner(tmp_path, **{'learner.epochs': 3, 'learner.minibatches': 2,
                                  'learner.normalize_advantages': True})
  optimizer = learner.algorithm.checkpoint_items()['optimizer']
  batch = helpers.queued_vtrace_unrolls(learner, np.random.default_rng(1))
  figures = learner.algorithm.train(batch)
  assert figures['update_applied'] is True and np.isfinite(figures['total_loss'])
  assert optimizer.iterations.numpy() == 6
  # Actions of policy 0 trained by policies 0-5: a mean lag of 2.5 gradient steps.
  assert figures['policy_lag'] == 2.5
  assert learner.algorithm.train(batch)['policy_lag'] == 8.5  # Policies 6-11.
  assert optimizer.iterations.numpy() == 12
  # New actions come from the policy trained so far, policy 12; each new unroll's first
  # step is the last one's final step, chosen by policy 0.
  fresh = helpers.queued_vtrace_unrolls(learner, np.random.default_rng(3))
  assert learner.algorithm.train(fresh)['policy_lag'] == pytest.approx(
      np.mean(np.arange(12, 18)) - np.mean([0, 12, 12, 12, 12]))


def test_off_policy_figures_are_zero_on_fresh_data_and_grow_as_it_goes_stale(tmp_path):
  learner = _learner(tmp_path, **{'learner.learning_rate': 0.05,
                                  'learner.learning_rate_decay': False})
  batch = helpers.queued_vtrace_unrolls(learner, np.random.default_rng(2))
  # The unrolls came from the learner's own inference: on its one step, pi is mu.
  fresh = learner.algorithm.train(batch)
  assert fresh['clip_fraction'] == 0.0 and abs(fresh['behaviour_kl']) < 1e-5
  assert fresh['policy_lag'] == 0.0
  for _ in range(5):  # The same batch again: as if it had waited in a full queue.
    stale = learner.algorithm.train(batch)
  assert stale['update_applied'] is True
  assert stale['behaviour_kl'] > 0.01 and stale['clip_fraction'] > 0.2
  assert stale['policy_lag'] == 5.0


def test_a_clip_centred_on_the_batch_start_counts_only_this_batch_s_steps(tmp_path):
  """Decoupled PPO (`learner.policy_clip_center='batch_start'`): data that waited in the
  queue is as far from the policy as ever (behaviour KL), but the clip measures only the
  batch's own steps, so a batch's first step clips nothing."""
  learner = _learner(tmp_path, **{'learner.learning_rate': 0.05,
                                  'learner.learning_rate_decay': False,
                                  'learner.policy_clip_center': 'batch_start'})
  batch = helpers.queued_vtrace_unrolls(learner, np.random.default_rng(2))
  for _ in range(6):  # As stale as in the test above.
    stale = learner.algorithm.train(batch)
  assert stale['update_applied'] is True and np.isfinite(stale['total_loss'])
  assert stale['behaviour_kl'] > 0.01 and stale['policy_lag'] == 5.0
  assert stale['clip_fraction'] == 0.0
  # Two steps on one batch: the second is measured against the first one's policy.
  learner = _learner(tmp_path / 'epochs', **{
      'learner.learning_rate': 0.05, 'learner.learning_rate_decay': False,
      'learner.policy_clip_center': 'batch_start', 'learner.epochs': 2})
  batch = helpers.queued_vtrace_unrolls(learner, np.random.default_rng(2))
  assert learner.algorithm.train(batch)['clip_fraction'] > 0.0
