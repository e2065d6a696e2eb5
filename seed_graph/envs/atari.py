"""Atari 2600 through ale-py and gymnasium, with the standard SEED RL / Dopamine protocol:
sticky actions, frame skip with max-pooling of the last two frames, 84x84 grayscale,
random no-op starts, the full action set and a cap on episode length in frames; optionally
the last `frame_stack` observations stacked (`[84, 84, k]`)."""

import gymnasium
from gymnasium.wrappers import AtariPreprocessing

from seed_graph.envs import frame_stack
from seed_graph.envs import gym_adapter


def _register():
  import ale_py  # pylint: disable=g-import-not-at-top
  gymnasium.register_envs(ale_py)


def games():
  _register()
  prefix, suffix = 'ALE/', '-v5'
  return sorted(k[len(prefix):-len(suffix)] for k in gymnasium.registry
                if k.startswith(prefix) and k.endswith(suffix))


def validate_config(env_config):
  if env_config.game not in games():
    raise ValueError(f'env.game={env_config.game!r} is not an Atari game known to ale-py; '
                     f'valid: {", ".join(games())}')
  for key in ('frame_skip', 'screen_size', 'max_episode_frames', 'frame_stack'):
    if env_config.get(key, 1) <= 0:
      raise ValueError(f'env.{key} must be positive, got {env_config[key]}')
  if not 0.0 <= env_config.sticky_action_probability <= 1.0:
    raise ValueError('env.sticky_action_probability must be in [0, 1], got '
                     f'{env_config.sticky_action_probability}')
  if env_config.noop_max < 0:
    raise ValueError(f'env.noop_max must be >= 0, got {env_config.noop_max}')


def make_environment(env_config, seed: int):
  _register()
  raw = gymnasium.make(
      f'ALE/{env_config.game}-v5',
      frameskip=1,  # AtariPreprocessing skips frames and max-pools the last two.
      repeat_action_probability=env_config.sticky_action_probability,
      full_action_space=env_config.full_action_space,
      max_num_frames_per_episode=env_config.max_episode_frames,
      # The raw RGB screen for `frame()` (films); drawn only when asked for.
      render_mode='rgb_array')
  env = AtariPreprocessing(
      raw, noop_max=env_config.noop_max, frame_skip=env_config.frame_skip,
      screen_size=env_config.screen_size, grayscale_obs=True, terminal_on_life_loss=False)
  env = gym_adapter.GymnasiumEnv(env, seed, frames_per_step=env_config.frame_skip)
  stack = env_config.get('frame_stack', 1)  # Absent from configs older than the key.
  return frame_stack.FrameStack(env, stack) if stack > 1 else env
