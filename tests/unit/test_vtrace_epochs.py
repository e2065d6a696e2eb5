"""V-trace trained like APPO: each batch for epochs of minibatches, with PPO's clipped
surrogate, and the figures that show how far off-policy its data is."""

import numpy as np

from seed_graph.algos.vtrace import learning as vtrace_learner
from seed_graph.nodes import learner as learner_lib
from tests import helpers


def _learner(tmp_path, **overrides):
  config = helpers.small_cartpole_config(tmp_path, **{
      'learner.queue_capacity': 1000, 'learner.policy_clip': 0.1, **overrides})
  return learner_lib.Learner(config, vtrace_learner.VTraceLearner)


def test_vtrace_trains_each_batch_for_epochs_of_minibatches(tmp_path):
  """`learner.epochs` x `learner.minibatches` gradient steps per batch (APPO's reuse)."""
  learner = _learner(tmp_path, **{'learner.epochs': 3, 'learner.minibatches': 2,
                                  'learner.normalize_advantages': True})
  optimizer = learner.algorithm.checkpoint_items()['optimizer']
  batch = helpers.queued_vtrace_unrolls(learner, np.random.default_rng(1))
  figures = learner.algorithm.train(batch)
  assert figures['update_applied'] is True and np.isfinite(figures['total_loss'])
  assert optimizer.iterations.numpy() == 6
  learner.algorithm.train(batch)
  assert optimizer.iterations.numpy() == 12


def test_off_policy_figures_are_zero_on_fresh_data_and_grow_as_it_goes_stale(tmp_path):
  learner = _learner(tmp_path, **{'learner.learning_rate': 0.05,
                                  'learner.learning_rate_decay': False})
  batch = helpers.queued_vtrace_unrolls(learner, np.random.default_rng(2))
  # The unrolls came from the learner's own inference: on its one step, pi is mu.
  fresh = learner.algorithm.train(batch)
  assert fresh['clip_fraction'] == 0.0 and abs(fresh['behaviour_kl']) < 1e-5
  for _ in range(5):  # The same batch again: as if it had waited in a full queue.
    stale = learner.algorithm.train(batch)
  assert stale['update_applied'] is True
  assert stale['behaviour_kl'] > 0.01 and stale['clip_fraction'] > 0.2
