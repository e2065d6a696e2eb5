"""What an environment must be to train here, checked with a message naming what is not.

The contract: one observation array (any shape, a numeric or bool dtype; dict or tuple
observations are refused: flatten them into one array first), a discrete action (one of
`num_values` integers), and optionally an attribute `frames_per_step` (emulator frames a
step consumes, e.g. the frame skip; 1 if absent) used for frame counting, and optionally
a method `frame()` returning what a person would see, an RGB `uint8 [H, W, 3]` array (or
None), which `launch.eval --video` films, and optionally an attribute `game_over`, read
after an episode's last step: False when the episode ended with a lost life but the game
goes on (its next `reset()` continues it), so returns are counted per whole game (True
if absent). dm_env
environments are used as they are; gymnasium environments are adapted
(`gym_adapter.GymnasiumEnv`) and need a Box observation space and a Discrete action
space.
"""

import dm_env
from dm_env import specs
import numpy as np

# The dtypes the inference edge carries (`seed_graph.inference.wire`), kept here too so
# that this layer imports nothing from the layers above it.
OBSERVATION_DTYPES = ('bool', 'uint8', 'int8', 'uint16', 'int16', 'uint32', 'int32',
                      'uint64', 'int64', 'float16', 'float32', 'float64')


class UnsupportedEnvironment(ValueError):
  """An environment outside the contract; the message says which part."""


def check_observation(where: str, shape, dtype):
  if np.dtype(dtype).name not in OBSERVATION_DTYPES:
    raise UnsupportedEnvironment(
        f'{where}: observation dtype {np.dtype(dtype)} is not supported (one of '
        f'{", ".join(OBSERVATION_DTYPES)})')
  if any(int(d) <= 0 for d in shape):
    raise UnsupportedEnvironment(f'{where}: observation shape {tuple(shape)} has an '
                                 'empty dimension')


def check_dm_env(where: str, env: dm_env.Environment) -> dm_env.Environment:
  """Checks a dm_env environment's specs; gives it `frames_per_step = 1` if it has none."""
  observation = env.observation_spec()
  if not isinstance(observation, specs.Array):
    raise UnsupportedEnvironment(
        f'{where}: the observation spec is a {type(observation).__name__}; only one '
        'array is supported (dict or tuple observations: flatten them into one array)')
  check_observation(where, observation.shape, observation.dtype)
  action = env.action_spec()
  if not isinstance(action, specs.DiscreteArray):
    raise UnsupportedEnvironment(
        f'{where}: the action spec is {action!r}; only discrete actions are supported '
        '(a dm_env.specs.DiscreteArray)')
  if not hasattr(env, 'frames_per_step'):
    env.frames_per_step = 1
  return env
