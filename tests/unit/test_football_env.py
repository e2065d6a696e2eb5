"""Tests of the Google Research Football adapter (needs scripts/install_football.sh to have run)."""

import dm_env
from ml_collections import config_dict
import numpy as np
import pytest

from seed_graph.config import schema as config_schema
from seed_graph import envs
from seed_graph.envs import football
from tests import helpers

helpers.needs('gfootball')
pytestmark = pytest.mark.football


def _config(**overrides):
  values = dict(name='football', scenario='academy_empty_goal_close',
                representation='simple115v2', rewards='scoring', frame_stack=1,
                backend='python')
  values.update(overrides)
  return config_dict.ConfigDict(values)


def _check(config):
  config_schema.check(config, envs.keys('football'))


def _check_obs(env, obs):
  spec = env.observation_spec()
  assert isinstance(obs, np.ndarray)
  assert obs.dtype == spec.dtype
  assert obs.shape == spec.shape
  spec.validate(obs)


def test_scenarios_listed():
  assert 'academy_empty_goal_close' in football.SCENARIOS
  assert '11_vs_11_easy_stochastic' in football.SCENARIOS
  assert 'tests' not in football.SCENARIOS
  assert set(football.SCENARIOS) == set(football._SCENARIOS_2_10_2)


def test_validate_accepts_good_configs():
  _check(_config())
  _check(_config(representation='extracted', frame_stack=4, rewards='scoring,checkpoints'))


def test_unknown_scenario_lists_valid_ones():
  with pytest.raises(ValueError) as e:
    _check(_config(scenario='foo'))
  message = str(e.value)
  assert "scenario: 'foo' is not a Football scenario" in message
  assert 'academy_empty_goal_close' in message and '11_vs_11_stochastic' in message


@pytest.mark.parametrize('key,value', [
    ('representation', 'pixels'),
    ('representation', 'simple115'),
    ('rewards', 'checkpoints'),
    ('frame_stack', 0),
    ('frame_stack', 'yes'),
])
def test_bad_values_name_the_key(key, value):
  with pytest.raises(ValueError, match=f'^{key}: '):
    _check(_config(**{key: value}))


def test_missing_key_is_named():
  config = _config()
  del config['rewards']
  with pytest.raises(ValueError, match='rewards: missing'):
    _check(config)


def test_simple115_steps_through_episode_end():
  env = football.make_environment(_config(), seed=1)
  try:
    assert env.frames_per_step == 1
    assert env.observation_spec().shape == (115,)
    assert env.observation_spec().dtype == np.float32
    action_spec = env.action_spec()
    assert isinstance(action_spec, dm_env.specs.DiscreteArray)
    assert action_spec.num_values == 19

    rng = np.random.RandomState(0)
    timestep = env.reset()
    assert timestep.first()
    _check_obs(env, timestep.observation)
    episodes_ended, steps = 0, 0
    # academy_empty_goal_close lasts at most 400 steps.
    while episodes_ended < 1 or steps < 200:
      assert steps < 1000, 'no episode ended within 1000 random steps'
      timestep = env.step(rng.randint(action_spec.num_values))
      steps += 1
      _check_obs(env, timestep.observation)
      assert np.isfinite(timestep.reward)
      if timestep.last():
        assert timestep.discount == 0.0
        episodes_ended += 1
        timestep = env.reset()
        assert timestep.first()
        _check_obs(env, timestep.observation)
      else:
        assert timestep.mid()
    # After a reset the episode continues normally.
    timestep = env.step(0)
    assert timestep.mid() or timestep.last()
  finally:
    env.close()


def test_same_seed_same_start():
  envs = [football.make_environment(_config(scenario='11_vs_11_easy_stochastic'), seed=s)
          for s in (3, 3)]
  try:
    observations = []
    for env in envs:
      env.reset()
      for _ in range(20):
        timestep = env.step(0)
      observations.append(timestep.observation)
    np.testing.assert_array_equal(observations[0], observations[1])
  finally:
    for env in envs:
      env.close()


@pytest.mark.parametrize('frame_stack,channels', [(1, 4), (4, 16)])
def test_extracted_is_uint8_smm(frame_stack, channels):
  env = envs.make_environment(
      _config(scenario='11_vs_11_easy_stochastic', representation='extracted',
              frame_stack=frame_stack), seed=2)
  try:
    spec = env.observation_spec()
    assert spec.shape == (72, 96, channels)
    assert spec.dtype == np.uint8
    timestep = env.reset()
    _check_obs(env, timestep.observation)
    for action in range(5):
      timestep = env.step(action)
      _check_obs(env, timestep.observation)
    assert timestep.observation.max() == 255  # Players are drawn at 255.
  finally:
    env.close()


def test_frame_draws_the_game_as_a_minimap_even_with_vector_observations():
  env = football.make_environment(_config(scenario='11_vs_11_easy_stochastic'), seed=4)
  try:
    env.reset()
    first = env.frame()
    assert first.shape == (288, 384, 3) and first.dtype == np.uint8
    colors = {tuple(c) for c in first.reshape(-1, 3)}
    assert set(football.PLANE_COLORS[:3]) <= colors  # Both teams and the ball are drawn.
    for _ in range(30):
      env.step(5)  # Players move: the picture changes.
    assert not np.array_equal(env.frame(), first)
  finally:
    env.close()
