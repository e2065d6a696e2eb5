"""Shipped agents (`seed_graph.launch.pretrained`): a run's final weights, without the
optimizer, as float16, load by checkpoint key into a learner built from the run's config
and act as the run's own checkpoint does (`benchmarks.shipped_agent` shows where they part
and leaves the checkpoint's games as they are); each shipped agent loads and plays."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from benchmarks import shipped_agent
from seed_graph.algos.vtrace import learning as vtrace_learner
from seed_graph.config import record as config_record
from seed_graph.inference import messages
from seed_graph.launch import eval as eval_lib
from seed_graph.launch import pretrained
from seed_graph.nodes.learner import shell as learner_lib
from tests import helpers


def _request(seed: int, is_eval: bool = False):
  """A step of training environments 0-3, or of the evaluator's 8 and 9 (greedy)."""
  rng = np.random.default_rng(seed)
  env_ids = np.arange(8, 10, dtype=np.int32) if is_eval else np.arange(4, dtype=np.int32)
  rows = len(env_ids)
  return messages.InferenceRequest(
      env_ids, np.full(rows, 1, np.int64), np.zeros(rows, np.float32), np.zeros(rows, bool),
      np.zeros(rows, bool), rng.normal(size=(rows, 4)).astype(np.float32), is_eval,
      np.zeros(rows, bool))


def _trained_run(tmp_path):
  """A CartPole learner's logdir with a config.json and a checkpoint; the learner."""
  config = helpers.small_cartpole_config(tmp_path / 'run', **{'evaluators.epsilon': 0.0})
  config_record.record(config)
  learner = learner_lib.Learner(config, vtrace_learner.VTrace)
  for variable in learner.algorithm.agent.trainable_variables:  # Not the initial values.
    variable.assign(variable + 0.01 * np.random.default_rng(1).normal(size=variable.shape))
  learner.infer_batch([_request(0)])
  learner.save()
  return config, learner


def test_an_agent_without_its_optimizer_in_float16_acts_as_the_run(tmp_path):
  config, trained = _trained_run(tmp_path)
  npz, about = pretrained.export(config.logdir, 'Pole', str(tmp_path / 'shipped'))
  with np.load(npz) as stored:
    assert stored.files and not any('optimizer' in key.lower() for key in stored.files)
    assert {str(stored[k].dtype) for k in stored.files if k.startswith('agent/')} == {
        'float16'}
  with open(about) as f:
    assert json.load(f)['config']['logdir'] == ''  # No path of the machine.
  loaded_config, values, source = pretrained.load('Pole', str(tmp_path / 'scratch'),
                                                  str(tmp_path / 'shipped'))
  assert source['frames'] == 4 and loaded_config.logdir == str(tmp_path / 'scratch')
  fresh = learner_lib.Learner(loaded_config, vtrace_learner.VTrace)
  fresh.restore(values).expect_partial()
  assert fresh.learner_steps == trained.learner_steps
  for ours, theirs in zip(fresh.algorithm.agent.variables, trained.algorithm.agent.variables):
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-3, atol=1e-4)
  for seed in range(1, 6):  # Greedy steps of the evaluator's environments, fresh in both.
    np.testing.assert_array_equal(fresh.infer_batch([_request(seed, True)])[0],
                                  trained.infer_batch([_request(seed, True)])[0])


def test_a_value_that_does_not_fit_is_named(tmp_path):
  config, learner = _trained_run(tmp_path)
  with pytest.raises(KeyError, match='agent/no_such_layer/w: this learner has nothing'):
    learner.restore({'agent/no_such_layer/w': np.zeros(3)})
  key = next(k for k in np.load(pretrained.export(
      config.logdir, 'Pole', str(tmp_path / 'shipped'))[0]).files if k.endswith('/w'))
  with pytest.raises(ValueError, match=f'{key}: a value of shape \\(3,\\)'):
    learner.restore({key: np.zeros(3)})
  with pytest.raises(pretrained.PretrainedError, match="no shipped agent 'Nope'; there are: Pole"):
    pretrained.load('Nope', str(tmp_path), str(tmp_path / 'shipped'))


def test_the_side_by_side_play_shows_where_the_shipped_agent_parts(tmp_path):
  config, _ = _trained_run(tmp_path)
  pretrained.export(config.logdir, 'Pole', str(tmp_path / 'shipped'))
  games = shipped_agent.compare(config.logdir, 'Pole', str(tmp_path / 'shipped'),
                                episodes=2, seed=7, max_steps=300)
  # The checkpoint's own games, as launch.eval plays them (greedy: epsilon 0).
  run_config = eval_lib.load_config(config.logdir)
  learner = eval_lib.make_learner(run_config)
  learner.restore(eval_lib.checkpoint_path(config.logdir, None)).expect_partial()
  parse = eval_lib.request_parser(learner, run_config)
  for episode, game in enumerate(games):
    episode_return, steps, _ = eval_lib.play_episode(
        learner, parse, run_config, 7 + episode, 300)
    assert (game['episode_return'], game['steps']) == (episode_return, steps)
    # float16 moves the logits a little, and it is measured; an action can flip only
    # where the checkpoint's two best logits are within twice that.
    assert 0 < game['max_logit_difference'] < 0.05
    assert all(0 <= d['checkpoint_gap'] <= 2 * game['max_logit_difference']
               and d['checkpoint_action'] != d['shipped_action'] and d['step'] < steps
               for d in game['greedy_differs'])


@pytest.mark.parametrize('name', ['Pong', 'BeamRider', 'Breakout'])
def test_a_shipped_agent_loads_and_plays(name):
  helpers.needs('ale_py')
  assert name in pretrained.names()
  assert os.path.getsize(os.path.join(pretrained.FOLDER, f'{name}.npz')) <= 4_000_000
  with open(os.path.join(pretrained.FOLDER, f'{name}.json')) as f:
    steps = json.load(f)['learner_steps']
  result = subprocess.run([sys.executable, '-m', 'seed_graph.launch.eval', f'--pretrained={name}',
                           '--episodes=1', '--max_episode_steps=200'], cwd=helpers.REPO,
                          capture_output=True, text=True, timeout=240)
  assert result.returncode == 0, result.stderr[-3000:]
  assert f'evaluating the shipped agent {name} (learner step {steps}' in result.stdout
  assert 'episode 0: return' in result.stdout and '200 steps (truncated)' in result.stdout
