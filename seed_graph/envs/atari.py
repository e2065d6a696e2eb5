"""Atari 2600 through ale-py and gymnasium. The defaults are SEED RL's (and Dopamine's)
protocol: sticky actions, frame skip with max-pooling of the last two frames, 84x84
grayscale, random no-op starts, the full action set and a cap on episode length in
frames."""

import difflib

import gymnasium
from gymnasium.wrappers import AtariPreprocessing
import ml_collections

from seed_graph.config.schema import Key
from seed_graph.config.schema import in_range
from seed_graph.config.schema import non_negative
from seed_graph.config.schema import positive
from seed_graph.envs import atari_episodes
from seed_graph.envs import gym_adapter

KEYS = {
    'game': Key('Pong', "Any ALE game name, e.g. 'Breakout'.", fixed=True),
    'sticky_action_probability': Key(0.25, 'Chance the previous action repeats instead '
                                     'of the chosen one.', in_range(0.0, 1.0)),
    'frame_skip': Key(4, 'Frames per agent step (the last two max-pooled).', positive,
                      fixed=True),
    'screen_size': Key(84, 'Observations are screen_size x screen_size grayscale.',
                       positive, fixed=True),
    'noop_max': Key(30, 'Up to this many no-ops at the start of an episode.',
                    non_negative),
    'full_action_space': Key(True, 'All 18 actions, whatever the game; False: the '
                             "game's own (minimal) set.", fixed=True),
    'max_episode_frames': Key(108_000, 'Episodes are cut (truncated) after this many '
                              'frames: 30 minutes of play at 60 Hz.', positive),
    'episodic_life': Key(False, 'A lost life ends the training episode (values bootstrap '
                         'to 0 there); returns are still counted per whole game.'),
    'fire_reset': Key(False, 'Press FIRE (then action 2) at the start of every episode, '
                      'in games whose action 1 is FIRE.'),
    'envpool_threads': Key(1, "EnvPool threads per actor env group (env.backend="
                           "'envpool').", positive),
}


def _register():
  import ale_py  # pylint: disable=g-import-not-at-top
  # Without this, every emulator an actor makes prints ALE's two-line banner.
  ale_py.ALEInterface.setLoggerMode(ale_py.LoggerMode.Error)
  gymnasium.register_envs(ale_py)


def games():
  _register()
  prefix, suffix = 'ALE/', '-v5'
  return sorted(k[len(prefix):-len(suffix)] for k in gymnasium.registry
                if k.startswith(prefix) and k.endswith(suffix))


def validate_config(env_config: ml_collections.ConfigDict):
  if env_config.game not in games():
    close = difflib.get_close_matches(str(env_config.game), games(), n=1, cutoff=0.6)
    hint = f'did you mean {close[0]!r}? ' if close else ''
    raise ValueError(f'env.game={env_config.game!r} is not an Atari game known to ale-py; '
                     f'{hint}valid: {", ".join(games())}')


def make_environment(env_config: ml_collections.ConfigDict, seed: int):
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
  if env_config.episodic_life or env_config.fire_reset:
    env = atari_episodes.AtariEpisodes(
        env, raw.unwrapped.ale, raw.unwrapped.get_action_meanings(),
        env_config.episodic_life, env_config.fire_reset)
  return env
