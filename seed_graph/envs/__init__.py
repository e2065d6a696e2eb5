"""Environments, adapted to dm_env, chosen by `config.env.name`.

Every environment keeps `seed_graph.envs.contract`: one array observation, a discrete
action spec and an attribute `frames_per_step` (emulator frames per step, for frame
counting). Modules are imported only when their environment is asked for, so Football's
engine is optional. `gymnasium` makes any registered Gymnasium environment by its id;
`custom` builds your own environment from an import string.

The `env` section of a config is `COMMON_KEYS` plus the chosen environment's own `KEYS`
(`keys(name)`).
"""

import importlib
from typing import Dict

import ml_collections
import numpy as np

from seed_graph.config import schema as config_schema
from seed_graph.algos import base
from seed_graph.config.schema import Key
from seed_graph.envs import frame_stack

_MODULES = {
    'cartpole': 'seed_graph.envs.cartpole',
    'atari': 'seed_graph.envs.atari',
    'football': 'seed_graph.envs.football',
    'gymnasium': 'seed_graph.envs.registered_gymnasium',  # Any registered id: env.id.
    'custom': 'seed_graph.envs.custom',  # Your own, by import string: env.factory.
}
BACKENDS = ('python', 'envpool')

COMMON_KEYS = {
    'name': Key('cartpole', f"The environment: {', '.join(repr(n) for n in _MODULES)}.",
                config_schema.one_of(*_MODULES), fixed=True),
    'frame_stack': Key(1, 'The agent sees the last k observations, stacked on the last '
                       'axis (an image\'s channels concatenated); V-trace stacks them on '
                       'the actors, R2D2 on the learner.', config_schema.positive,
                       fixed=True),
    'backend': Key('python', "Who steps an actor's environments: 'python' (one object "
                   "each, in a Python loop) or 'envpool' (Atari only: EnvPool's C++ "
                   'threads, same protocol).', config_schema.one_of(*BACKENDS)),
}


def _module(name: str):
  if name not in _MODULES:
    raise ValueError(f'env.name={name!r} is not a known environment; valid: '
                     f'{", ".join(sorted(_MODULES))}')
  return importlib.import_module(_MODULES[name])


def keys(name: str) -> Dict[str, Key]:
  """The `env` section's keys for environment `name`."""
  return {**COMMON_KEYS, **_module(name).KEYS}


def validate_config(env_config: ml_collections.ConfigDict) -> None:
  """What the keys' own checks cannot see (a game ale-py knows, a factory that imports);
  raises ValueError naming the key. Creates no environment."""
  _module(env_config.name).validate_config(env_config)


def make_environment(env_config: ml_collections.ConfigDict, seed: int):
  env = _module(env_config.name).make_environment(env_config, seed)
  if env_config.frame_stack > 1:
    env = frame_stack.FrameStack(env, env_config.frame_stack)
  return env


def acting_config(env_config: ml_collections.ConfigDict,
                  learner_stacks_frames: bool) -> ml_collections.ConfigDict:
  """What actors step: `env_config`, with `frame_stack` 1 if the learner stacks."""
  if not learner_stacks_frames:
    return env_config
  single = ml_collections.ConfigDict(env_config.to_dict())
  single.frame_stack = 1
  return single


def read_spec(env_config: ml_collections.ConfigDict) -> base.EnvironmentSpec:
  """The spec of the environment `env_config` makes (builds one, then closes it)."""
  env = make_environment(env_config, seed=0)
  try:
    spec = env.observation_spec()
    return base.EnvironmentSpec(
        observation_shape=tuple(spec.shape), observation_dtype=np.dtype(spec.dtype),
        num_actions=int(env.action_spec().num_values),
        frames_per_step=int(env.frames_per_step))
  finally:
    close = getattr(env, 'close', None)
    if close:
      close()
