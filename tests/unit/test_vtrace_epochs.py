"""V-trace trained like APPO: each batch for epochs of minibatches, the clipped surrogate
centred on the actors' policy or on the learner's own first pass."""

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


def _stale_batch_figures(tmp_path, proximal_policy, epochs=1, trainings=6):
  """Figures of the last of `trainings` passes over one batch: from the second on, the
  batch is stale, as data that waited in a full queue is."""
  learner = _learner(tmp_path / proximal_policy, **{
      'learner.proximal_policy': proximal_policy, 'learner.epochs': epochs,
      'learner.minibatches': 2, 'learner.learning_rate': 0.05,
      'learner.learning_rate_decay': False})
  batch = helpers.queued_vtrace_unrolls(learner, np.random.default_rng(2))
  for _ in range(trainings):
    figures = learner.algorithm.train(batch)
  assert figures['update_applied'] is True and np.isfinite(figures['total_loss'])
  return figures


def test_on_stale_data_first_pass_ratios_start_inside_the_clip(tmp_path):
  behaviour = _stale_batch_figures(tmp_path, 'behaviour')
  first_pass = _stale_batch_figures(tmp_path, 'first_pass')
  # The policy has moved away from the actors' in both ...
  assert behaviour['behaviour_kl'] > 0.01 and first_pass['behaviour_kl'] > 0.01
  # ... ratios to the actors' policy leave the clip; to the learner's own, on its only
  # pass, they are exactly 1.
  assert behaviour['clip_fraction'] > 0.2
  assert first_pass['clip_fraction'] == 0.0


def test_later_epochs_take_ratios_to_the_first_pass(tmp_path):
  figures = _stale_batch_figures(tmp_path, 'first_pass', epochs=3, trainings=1)
  # Epoch 1's ratios are 1; epochs 2 and 3 see the policy moved by the steps since.
  assert figures['clip_fraction'] > 0
