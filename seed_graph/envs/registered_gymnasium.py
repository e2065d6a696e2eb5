"""Any environment registered with Gymnasium, by its id, without writing code:
`env.name = 'gymnasium'`, `env.id = 'Acrobot-v1'` (and `env.kwargs`, passed to
`gymnasium.make`), as CleanRL's `--env-id` does. The environment must keep
`seed_graph.envs.contract` (one Box observation, Discrete actions): others fail before
launch, saying what is unsupported. Films come from `render()` when `env.kwargs` holds
`render_mode='rgb_array'`.
"""

import difflib

import gymnasium
import ml_collections

from seed_graph.config.schema import Key
from seed_graph.envs import gym_adapter

KEYS = {
    'id': Key('', "A registered Gymnasium id, e.g. 'Acrobot-v1' or 'LunarLander-v3'.",
              fixed=True),
    'kwargs': Key({}, 'Keyword arguments of gymnasium.make, beside the id.', fixed=True),
}


def validate_config(env_config: ml_collections.ConfigDict):
  env_id = env_config.id
  if env_id not in gymnasium.registry:
    close = difflib.get_close_matches(str(env_id), list(gymnasium.registry), n=3)
    hint = f'; did you mean {", ".join(close)}?' if close else ''
    raise ValueError(f'env.id={env_id!r} is not a registered Gymnasium environment'
                     + (hint or " (set env.id, e.g. 'Acrobot-v1')"))


def make_environment(env_config: ml_collections.ConfigDict,
                     seed: int) -> gym_adapter.GymnasiumEnv:
  validate_config(env_config)
  where = f'env.id={env_config.id!r}'
  try:
    env = gymnasium.make(env_config.id, **dict(env_config.kwargs))
  except TypeError as error:
    raise ValueError(f'{where}: gymnasium.make does not take env.kwargs='
                     f'{dict(env_config.kwargs)} ({error})') from None
  return gym_adapter.GymnasiumEnv(env, seed, 1, where)
