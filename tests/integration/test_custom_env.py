"""Your own environment by import string (`env.name='custom'`, `env.factory`): the
example trains under local_mp, and environments outside the contract fail before launch
with a message naming what is unsupported."""

import dm_env
from dm_env import specs
import gymnasium
import ml_collections
import numpy as np
import pytest

from seed_graph.configs import random_walk_vtrace
from seed_graph.config.schema import ConfigError
from seed_graph.programs import registry
from tests import helpers


# Factories the checks below name by import string ('tests.integration.test_custom_env:...').
def gym_cartpole(seed):
  del seed
  return gymnasium.make('CartPole-v1')


def gym_continuous_actions(seed):
  del seed
  return gymnasium.make('Pendulum-v1')


def gym_dict_observations(seed):
  del seed
  env = gymnasium.make('CartPole-v1')
  env.observation_space = gymnasium.spaces.Dict({'state': env.observation_space})
  return env


class _DictObservationEnv(dm_env.Environment):

  def reset(self):
    return dm_env.restart({'a': np.zeros(2, np.float32)})

  def step(self, action):
    return self.reset()

  def observation_spec(self):
    return {'a': specs.Array((2,), np.float32)}

  def action_spec(self):
    return specs.DiscreteArray(2)


def dm_dict_observations(seed):
  del seed
  return _DictObservationEnv()


def not_an_environment(seed):
  return f'environment {seed}'


def _config(tmp_path, factory, **kwargs):
  config = random_walk_vtrace.get_config()
  config.logdir = str(tmp_path)
  config.env.factory = factory
  config.env.kwargs = ml_collections.ConfigDict(kwargs)
  return config


def test_the_example_and_a_gymnasium_factory_pass_the_checks(tmp_path):
  walk = registry.validate_config(_config(tmp_path,
                                                      'examples.random_walk:make_env'))
  assert (walk.observation_shape, walk.num_actions, walk.frames_per_step) == ((9,), 2, 1)
  cartpole = registry.validate_config(
      _config(tmp_path, 'tests.integration.test_custom_env:gym_cartpole'))
  assert (cartpole.observation_shape, cartpole.num_actions) == ((4,), 2)


@pytest.mark.parametrize('factory, message', [
    ('examples.random_walk', "env.factory: expected 'package.module:function'"),
    ('no_such_package.envs:make', "env.factory: cannot import 'no_such_package.envs'"),
    ('examples.random_walk:no_such_function', "has no function 'no_such_function'"),
    ('tests.integration.test_custom_env:gym_continuous_actions',
     'action space Box(-2.0, 2.0, (1,), float32) is not supported; only Discrete'),
    ('tests.integration.test_custom_env:gym_dict_observations',
     'observation space Dict(', ),
    ('tests.integration.test_custom_env:dm_dict_observations',
     'the observation spec is a dict; only one array is supported'),
    ('tests.integration.test_custom_env:not_an_environment',
     'returned a str; expected a dm_env.Environment or a gymnasium.Env'),
])
def test_environments_outside_the_contract_fail_naming_why(tmp_path, factory, message):
  with pytest.raises(ConfigError, match='env.factory') as error:
    registry.validate_config(_config(tmp_path, factory))
  assert message in str(error.value)


def test_unknown_custom_env_keys_are_named(tmp_path):
  config = _config(tmp_path, 'examples.random_walk:make_env')
  config.env.game = 'Pong'
  with pytest.raises(ConfigError, match='env.game: unknown config key'):
    registry.validate_config(config)


def test_the_example_environment_trains_under_local_mp(tmp_path):
  # Every node process imports examples.random_walk by its import string.
  logdir = tmp_path / 'walk'
  result = helpers.run_launch(logdir, '--config.total_environment_frames=20000',
                              *helpers.SMALL_VTRACE_FLAGS,
                              config='random_walk_vtrace', timeout=300)
  assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
  final = helpers.read_metrics(logdir)[-1]
  assert final['frames'] >= 20000
  assert final['learner_steps'] > 0
  assert final['episode_return'] is not None  # Episodes ended: the corridor was walked.
  assert 'eval_episode_return' in final


def test_a_factory_that_does_not_take_the_kwargs_fails_naming_them(tmp_path):
  config = _config(tmp_path, 'examples.random_walk:make_env', colour=3)
  with pytest.raises(ConfigError, match=r"env.factory='examples.random_walk:make_env' "
                     r"cannot be called as make_env\(seed=..., \*\*env.kwargs\) with "
                     r"env.kwargs=\{'colour': 3\}: got an unexpected keyword argument "
                     r"'colour'"):
    registry.validate_config(config)


def test_a_registered_gymnasium_id_trains_from_the_command_line_alone(tmp_path):
  """`env.name='gymnasium'` with `env.id`: Acrobot-v1 with no module or config file of
  one's own, as CleanRL's --env-id."""
  logdir = tmp_path / 'acrobot'
  result = helpers.run_launch(
      logdir, '--config.env.name=gymnasium', '--config.env.id=Acrobot-v1',
      '--config.total_environment_frames=3000', *helpers.SMALL_VTRACE_FLAGS, timeout=300)
  assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
  final = helpers.read_metrics(logdir)[-1]
  assert final['frames'] >= 3000 and final['learner_steps'] > 0
  assert final['environments_seen'] > 0
  for bad_id, needle in (('Acrobot-v2', 'did you mean Acrobot-v1'),
                         ('', "set env.id, e.g. 'Acrobot-v1'")):
    refused = helpers.run_launch(tmp_path / 'bad', '--config.env.name=gymnasium',
                                 f'--config.env.id={bad_id}', timeout=120)
    assert refused.returncode == 2 and needle in refused.stderr, refused.stderr[-2000:]
    assert len(refused.stderr.strip().splitlines()) == 1
