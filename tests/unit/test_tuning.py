"""What population-based training changes in a running learner
(`seed_graph.nodes.learner.tuning`, served on the control edge): weights copied from one
learner make another act identically, a changed hyperparameter is the one the next training
step uses, bad input fails its caller and changes nothing, and the values survive a
checkpoint."""

import numpy as np
import pytest

from seed_graph.algos.vtrace import learning as vtrace_learner
from seed_graph.inference import messages
from seed_graph.nodes.learner import shell as learner_lib
from tests import helpers


def _learner(path, seed, **overrides):
  config = helpers.small_cartpole_config(path,
                                         **{'learner.queue_capacity': 64, **overrides})
  config.seed = seed
  return learner_lib.Learner(config, vtrace_learner.VTrace)


def _drive(learner, rng, steps=6):
  """`steps` inference steps for the 8 training environments (CartPole rows)."""
  env_ids = np.arange(8, dtype=np.int32)
  for _ in range(steps):
    dones = rng.random(8) < 0.05
    learner.infer_batch([messages.InferenceRequest(
        env_ids, np.full(8, 1, np.int64), rng.random(8).astype(np.float32), dones,
        np.zeros(8, bool), rng.normal(size=(8, 4)).astype(np.float32), False, dones)])


def _batch(learner, rng):
  batch = None
  while batch is None:
    _drive(learner, rng)
    batch = learner.algorithm.next_batch()
  return batch


def _logits(learner, observations):
  n = len(observations)
  state = learner.algorithm.agent.initial_state(n)
  _, logits, _ = learner.run_policy(0, np.zeros(n, np.int32), np.zeros(n, np.float32),
                                    np.zeros(n, bool), observations, state,
                                    np.zeros(n, bool))
  return np.asarray(logits)


def _weights(learner):
  return [v.numpy().copy() for v in learner.algorithm.agent.variables]


def test_after_an_exploit_two_learners_act_identically(tmp_path):
  rng = np.random.default_rng(0)
  best, worst = _learner(tmp_path / 'best', seed=1), _learner(tmp_path / 'worst', seed=2)
  for learner in (best, worst):  # Both have trained: the optimizers have slots.
    learner.algorithm.train(_batch(learner, rng))
  observations = rng.normal(size=(16, 4)).astype(np.float32)
  assert np.abs(_logits(best, observations) - _logits(worst, observations)).max() > 1e-3
  worst.tuning.set_weights(best.tuning.get_weights(), source='best')
  np.testing.assert_array_equal(_logits(best, observations), _logits(worst, observations))
  # The optimizer state came too: the same batch trains both to the same weights.
  batch = _batch(best, rng)
  best.algorithm.train(batch)
  worst.algorithm.train(batch)
  for a, b in zip(_weights(best), _weights(worst)):
    np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
  assert worst.get_stats()['weights_loaded'] == 1
  assert 'weights_loaded' not in best.get_stats()


def test_a_changed_hyperparameter_is_what_the_next_step_uses(tmp_path):
  rng = np.random.default_rng(1)
  learner = _learner(tmp_path, seed=1, **{'learner.learning_rate_decay': False})
  entropy_cost = learner.tuning.get_hyperparameters()['entropy_cost']
  batch = _batch(learner, rng)
  assert learner.tuning.set_hyperparameters({'learning_rate': 0.0}) == {
      'entropy_cost': entropy_cost, 'learning_rate': 0.0}
  before = _weights(learner)
  first = learner.algorithm.train(batch)
  assert all(np.array_equal(a, b) for a, b in zip(before, _weights(learner)))
  # Same weights, same batch: the loss differs by the entropy term's new weight only.
  learner.tuning.set_hyperparameters({'entropy_cost': 0.5})
  second = learner.algorithm.train(batch)
  assert second['total_loss'] == pytest.approx(
      first['total_loss'] + (0.5 - entropy_cost) * first['entropy_loss'], rel=1e-4)
  learner.tuning.set_hyperparameters({'learning_rate': 0.01})
  figures = learner.algorithm.train(batch)
  assert any(not np.array_equal(a, b) for a, b in zip(before, _weights(learner)))
  assert figures['learning_rate_applied'] == pytest.approx(0.01)  # Decay is off here.
  stats = learner.get_stats()
  assert stats['hyperparameters_set'] == 3
  assert stats['hyperparameter/learning_rate'] == pytest.approx(0.01)
  assert stats['hyperparameter/entropy_cost'] == pytest.approx(0.5)


def test_the_applied_step_size_is_the_rate_times_the_linear_decay(tmp_path):
  rng = np.random.default_rng(3)
  learner = _learner(tmp_path, seed=1)
  learner.tuning.set_hyperparameters({'learning_rate': 0.02})
  batch = _batch(learner, rng)
  # CartPole: one frame per step; one gradient step per batch.
  config = helpers.small_cartpole_config(tmp_path)
  final_step = config.total_environment_frames // (
      config.learner.batch_size * config.learner.unroll_length)
  for step in (1, 2):
    figures = learner.algorithm.train(batch)
    assert figures['learning_rate_applied'] == pytest.approx(0.02 * (1 - step / final_step))
  assert learner.get_stats()['hyperparameter/learning_rate'] == pytest.approx(0.02)


def test_bad_input_fails_the_caller_and_changes_nothing(tmp_path):
  rng = np.random.default_rng(2)
  learner = _learner(tmp_path / 'a', seed=1)
  other = _learner(tmp_path / 'b', seed=1, **{'network.mlp_sizes': (8,)})
  values = learner.tuning.get_hyperparameters()
  for bad, message in (
      ({'learnin_rate': 1.0}, r"unknown hyperparameter\(s\) \['learnin_rate'\]"),
      ({'learning_rate': -1.0}, 'not a finite number >= 0'),
      ({'learning_rate': float('nan')}, 'not a finite number >= 0'),
      ({'entropy_cost': 0.1, 'learning_rate': 'fast'}, 'not a finite')):
    with pytest.raises(ValueError, match=message):
      learner.tuning.set_hyperparameters(bad)
  assert learner.tuning.get_hyperparameters() == values
  before = _weights(learner)
  observations = rng.normal(size=(4, 4)).astype(np.float32)
  for state in (other.tuning.get_weights(), {'.index': b'not a checkpoint'}, [1, 2]):
    with pytest.raises(ValueError, match='^state: '):
      learner.tuning.set_weights(state)
  assert all(np.array_equal(a, b) for a, b in zip(before, _weights(learner)))
  assert _logits(learner, observations).shape == (4, 2)


def test_hyperparameters_survive_a_checkpoint(tmp_path):
  learner = _learner(tmp_path, seed=1)
  learner.tuning.set_hyperparameters({'learning_rate': 1.5e-3, 'entropy_cost': 0.02})
  learner.save()
  resumed = _learner(tmp_path, seed=1)
  assert resumed.tuning.get_hyperparameters() == pytest.approx(
      {'learning_rate': 1.5e-3, 'entropy_cost': 0.02})
