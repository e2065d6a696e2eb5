"""Google Research Football (gfootball 2.10.2) as a dm_env environment.

gfootball is optional: it is installed by `scripts/install_football.sh` (it needs a
compiled engine), so this module imports it only inside `FootballEnv.__init__`; importing
this module, `SCENARIOS` and `validate_config` work without it.

Its keys are `KEYS`; stacking SMM frames is `env.frame_stack` (4: uint8 [72, 96, 16],
as SEED RL's Football agents see it), done for every environment alike.
"""

import importlib.util
import os
import pkgutil
import warnings
from typing import Any, Tuple

import dm_env
from dm_env import specs
import numpy as np
import ml_collections

from seed_graph.config.schema import Key

# The top-level scenario modules of gfootball 2.10.2 (gfootball/scenarios/*.py).
_SCENARIOS_2_10_2 = (
    '11_vs_11_competition',
    '11_vs_11_easy_stochastic',
    '11_vs_11_hard_stochastic',
    '11_vs_11_kaggle',
    '11_vs_11_stochastic',
    '1_vs_1_easy',
    '5_vs_5',
    'academy_3_vs_1_with_keeper',
    'academy_corner',
    'academy_counterattack_easy',
    'academy_counterattack_hard',
    'academy_empty_goal',
    'academy_empty_goal_close',
    'academy_pass_and_shoot_with_keeper',
    'academy_run_pass_and_shoot_with_keeper',
    'academy_run_to_score',
    'academy_run_to_score_with_keeper',
    'academy_single_goal_versus_lazy',
    'test_example_multiagent',
)

REPRESENTATIONS = ('extracted', 'simple115v2')
REWARDS = ('scoring', 'scoring,checkpoints')
NUM_ACTIONS = 19  # gfootball's default action set.
SMM_SHAPE = (72, 96)  # (height, width) of the super mini map.


def _installed_scenarios() -> Tuple[str, ...]:
  """Scenario names of the installed gfootball, found without importing it.

  (`gfootball.scenarios` imports the compiled engine, so only its folder is read.)
  """
  try:
    spec = importlib.util.find_spec('gfootball')
  except (ImportError, ValueError):
    return ()
  if spec is None or not spec.submodule_search_locations:
    return ()
  for location in spec.submodule_search_locations:
    folder = os.path.join(location, 'scenarios')
    if os.path.isdir(folder):
      return tuple(sorted(m.name for m in pkgutil.iter_modules([folder])
                          if not m.ispkg))
  return ()


SCENARIOS: Tuple[str, ...] = _installed_scenarios() or _SCENARIOS_2_10_2


def _one_of(choices, what):
  def check(value):
    return None if value in choices else (
        f'{value!r} is not {what}; valid: {", ".join(repr(c) for c in choices)}')
  return check


KEYS = {
    'scenario': Key('11_vs_11_easy_stochastic', "A gfootball scenario, e.g. "
                    "'academy_empty_goal_close'.",
                    _one_of(SCENARIOS, 'a Football scenario'), fixed=True),
    'representation': Key('extracted', "'extracted' (the super mini-map, uint8 "
                          "[72, 96, 4]) or 'simple115v2' (float32 [115]).",
                          _one_of(REPRESENTATIONS, 'a supported representation'),
                          fixed=True),
    'rewards': Key('scoring', "'scoring' (+1 a goal) or 'scoring,checkpoints'.",
                   _one_of(REWARDS, 'a supported reward')),
}


def validate_config(env_config: Any) -> None:
  """Everything is in the keys' own checks."""
  del env_config


def _import_gfootball():
  try:
    import gfootball.env as football_env  # pylint: disable=g-import-not-at-top
  except ImportError as e:
    raise ImportError(
        'gfootball is not installed (or its engine cannot be loaded) in this Python. '
        'Install it with: bash scripts/install_football.sh "$(which python)"') from e
  return football_env


# Colours of `FootballEnv.frame()`: the pitch, then one per mini-map plane.
PITCH_COLOR = (34, 102, 34)
PLANE_COLORS = ((230, 60, 60), (70, 130, 255), (255, 255, 255), (255, 220, 0))


class FootballEnv(dm_env.Environment):
  """One gfootball game; observations are a single numpy array, actions an int."""

  frames_per_step = 1

  def __init__(self, env_config: Any, seed: int):
    football_env = _import_gfootball()
    self._scenario = env_config.scenario
    self._representation = env_config.representation
    # The engine's randomness comes from `game_engine_random_seed` in gfootball's config;
    # a new one is drawn from this generator for every episode.
    self._rng = np.random.RandomState(seed % (2**32))
    with warnings.catch_warnings():
      # gym 0.25 warns about the old step API on every wrapper gfootball stacks.
      warnings.filterwarnings('ignore', message='.*old step API.*')
      self._env = self._create(football_env, env_config)
    self._first_reset = True
    self._needs_reset = True

    if self._representation == 'simple115v2':
      shape, dtype = (115,), np.float32
    else:
      shape, dtype = SMM_SHAPE + (4,), np.uint8
    gym_space = self._env.observation_space
    if tuple(gym_space.shape) != shape:
      raise RuntimeError(f'gfootball gave observations of shape {gym_space.shape}, '
                         f'expected {shape} for {self._representation}')
    self._obs_spec = specs.Array(shape=shape, dtype=dtype, name='observation')
    num_actions = int(getattr(self._env.action_space, 'n', NUM_ACTIONS))
    self._action_spec = specs.DiscreteArray(num_actions, dtype=np.int32, name='action')

  def _create(self, football_env, env_config: ml_collections.ConfigDict):
    return football_env.create_environment(
        env_name=self._scenario,
        stacked=False,  # env.frame_stack stacks, as for every environment.
        representation=self._representation,
        rewards=env_config.rewards,
        render=False,
        write_goal_dumps=False,
        write_full_episode_dumps=False,
        write_video=False,
        other_config_options={'game_engine_random_seed': self._draw_seed()},
    )

  def _draw_seed(self) -> int:
    return int(self._rng.randint(0, 2_000_000_000))

  def _convert(self, obs) -> np.ndarray:
    return np.asarray(obs, dtype=self._obs_spec.dtype).reshape(self._obs_spec.shape)

  def reset(self) -> dm_env.TimeStep:
    if not self._first_reset:
      config = getattr(self._env.unwrapped, '_config', None)
      if config is not None:  # gfootball.env.config.Config: values persist across episodes.
        config['game_engine_random_seed'] = self._draw_seed()
    self._first_reset = False
    obs = self._env.reset()
    self._needs_reset = False
    return dm_env.restart(self._convert(obs))

  def step(self, action) -> dm_env.TimeStep:
    if self._needs_reset:
      return self.reset()
    obs, reward, done, _ = self._env.step(int(action))
    reward = float(np.asarray(reward).sum())
    obs = self._convert(obs)
    if done:
      self._needs_reset = True
      return dm_env.termination(reward, obs)
    return dm_env.transition(reward, obs)

  def frame(self) -> np.ndarray:
    """The game as gfootball's super mini-map, drawn in RGB at 4x (its 3D renderer needs
    a display): left team red, right team blue, ball white, active player yellow."""
    from gfootball.env import observation_preprocessing  # pylint: disable=g-import-not-at-top
    planes = observation_preprocessing.generate_smm(self._env.unwrapped.observation())[0]
    image = np.empty(planes.shape[:2] + (3,), np.uint8)
    image[:] = PITCH_COLOR
    for plane, color in enumerate(PLANE_COLORS):
      image[planes[..., plane] > 0] = color
    return np.repeat(np.repeat(image, 4, axis=0), 4, axis=1)

  def observation_spec(self) -> specs.Array:
    return self._obs_spec

  def action_spec(self) -> specs.DiscreteArray:
    return self._action_spec

  def close(self) -> None:
    env, self._env = self._env, None
    if env is not None:
      env.close()


def make_environment(env_config: Any, seed: int) -> FootballEnv:
  return FootballEnv(env_config, seed)
