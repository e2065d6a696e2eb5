"""Your own environment, without editing this package: `env.name = 'custom'` and
`env.factory = 'my_package.my_module:make_env'`.

The factory is imported by its import string in every node process (the launcher puts
its working directory on the nodes' `PYTHONPATH`) and called as
`make_env(seed=seed, **env.kwargs)`. It returns a `dm_env.Environment` or a
`gymnasium.Env` that keeps `seed_graph.envs.contract`; anything else fails before
launch, with a message naming what is unsupported. See `examples/random_walk.py`.
"""

import inspect

import dm_env
import gymnasium
import ml_collections

from seed_graph.config import import_strings
from seed_graph.config.schema import Key
from seed_graph.envs import contract
from seed_graph.envs import gym_adapter

KEYS = {
    'factory': Key('', "Your environment's factory as 'package.module:function', "
                   'importable from the directory you launch in.', fixed=True),
    'kwargs': Key({}, 'Keyword arguments of the factory, beside seed=.', fixed=True),
}


def _factory(env_config: ml_collections.ConfigDict):
  return import_strings.resolve(env_config.factory, 'env.factory')


def _kwargs(env_config: ml_collections.ConfigDict) -> dict:
  return dict(env_config.kwargs)


def validate_config(env_config: ml_collections.ConfigDict):
  factory = _factory(env_config)
  try:
    signature = inspect.signature(factory)
  except (TypeError, ValueError):
    return  # A builtin or extension function: it is called as it is.
  try:
    signature.bind(seed=0, **_kwargs(env_config))
  except TypeError as error:
    raise ValueError(f'env.factory={env_config.factory!r} cannot be called as '
                     f'{factory.__name__}(seed=..., **env.kwargs) with env.kwargs='
                     f'{_kwargs(env_config)}: {error}') from None


def make_environment(env_config: ml_collections.ConfigDict,
                     seed: int) -> dm_env.Environment:
  where = f'env.factory={env_config.factory!r}'
  env = _factory(env_config)(seed=seed, **_kwargs(env_config))
  if isinstance(env, gymnasium.Env):
    return gym_adapter.GymnasiumEnv(env, seed, getattr(env, 'frames_per_step', 1), where)
  if isinstance(env, dm_env.Environment):
    return contract.check_dm_env(where, env)
  raise contract.UnsupportedEnvironment(
      f'{where} returned a {type(env).__name__}; expected a dm_env.Environment or a '
      'gymnasium.Env')
