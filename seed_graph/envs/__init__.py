"""Environments, adapted to dm_env, chosen by `config.env.name`.

Every environment keeps `seed_graph.envs.contract`: one array observation, a discrete
action spec and an attribute `frames_per_step` (emulator frames per step, for frame
counting). Modules are imported only when their environment is asked for, so Football's
engine is optional. `custom` builds your own environment from an import string.
"""

import importlib

import numpy as np

_MODULES = {
    'cartpole': 'seed_graph.envs.cartpole',
    'atari': 'seed_graph.envs.atari',
    'football': 'seed_graph.envs.football',
    'custom': 'seed_graph.envs.custom',  # Your own, by import string: env.factory.
}


def _module(env_config):
  name = env_config.name
  if name not in _MODULES:
    raise ValueError(f'env.name={name!r} is not a known environment; valid: '
                     f'{", ".join(sorted(_MODULES))}')
  return importlib.import_module(_MODULES[name])


def validate_config(env_config):
  """Raises ValueError naming the offending key; creates no environment."""
  _module(env_config).validate_config(env_config)


def make_environment(env_config, seed: int):
  return _module(env_config).make_environment(env_config, seed)


class EnvironmentInfo:
  """What the learner needs to know of an environment without stepping it."""

  def __init__(self, env_config):
    env = make_environment(env_config, seed=0)
    try:
      spec = env.observation_spec()
      self.observation_shape = tuple(spec.shape)
      self.observation_dtype = np.dtype(spec.dtype)
      self.num_actions = int(env.action_spec().num_values)
      self.frames_per_step = int(env.frames_per_step)
    finally:
      close = getattr(env, 'close', None)
      if close:
        close()
