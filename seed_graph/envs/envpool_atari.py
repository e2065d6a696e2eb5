"""Atari through EnvPool (`env.backend='envpool'`): the same protocol as `atari.py`, stepped
by EnvPool's C++ threads, one EnvPool per group of an actor's environments (a synchronous
EnvPool steps all of its environments at once).

The protocol maps key for key: sticky actions, frame skip with max-pooling of the last two
frames, `screen_size` grayscale (area resize, as gymnasium's AtariPreprocessing), random
no-op starts, the full action set, the cap on episode frames (as agent steps after the
no-op starts; ale-py's count includes them, up to `noop_max` frames sooner), and
`frame_stack` (EnvPool stacks on a first axis; rows are written channels last, as the
python backend's). No life-loss episodes, no reward clipping, no FIRE reset: the learner
clips rewards itself.

EnvPool resets a finished environment on the step after its last one, ignoring that
step's action. Here a finished environment is reset at once (`reset` of just those ids)
so each row keeps `seed_graph.envs.backends`' contract: the last reward, `done`, and the
next episode's first observation, with no step lost or added.
"""

from typing import Sequence

import numpy as np
import ml_collections


def _envpool():
  import envpool  # pylint: disable=g-import-not-at-top
  return envpool


def task_id(env_config: ml_collections.ConfigDict) -> str:
  return f'{env_config.game}-v5'


def validate_config(env_config: ml_collections.ConfigDict):
  try:
    known = _envpool().list_all_envs()
  except ImportError as error:
    raise ValueError("env.backend='envpool' needs the envpool package (installed by "
                     f'scripts/setup_env.sh on Python 3.10): {error}') from error
  if task_id(env_config) not in known:
    games = sorted(k[:-3] for k in known if k.endswith('-v5'))
    raise ValueError(f'env.game={env_config.game!r} is not an Atari game EnvPool knows '
                     f'(env.backend=envpool); valid: {", ".join(games)}')
  if env_config.episodic_life or env_config.fire_reset:
    raise ValueError('env.episodic_life, env.fire_reset: not with env.backend=envpool; '
                     "use env.backend='python'")
  if env_config.max_episode_frames % env_config.frame_skip:
    raise ValueError('env.backend=envpool caps episodes in agent steps: '
                     f'env.max_episode_frames={env_config.max_episode_frames} must be a '
                     f'multiple of env.frame_skip={env_config.frame_skip}')


def _make_pool(env_config: ml_collections.ConfigDict, seed: int, num_envs: int):
  return _envpool().make(
      task_id(env_config), env_type='gymnasium', num_envs=num_envs, seed=seed,
      num_threads=min(num_envs, env_config.envpool_threads),
      frame_skip=env_config.frame_skip,
      img_height=env_config.screen_size, img_width=env_config.screen_size,
      gray_scale=True, stack_num=env_config.frame_stack,
      noop_max=env_config.noop_max,
      repeat_action_probability=env_config.sticky_action_probability,
      full_action_space=env_config.full_action_space,
      max_episode_steps=env_config.max_episode_frames // env_config.frame_skip,
      episodic_life=False, reward_clip=False, use_fire_reset=False)


class EnvPoolAtari:
  """`EnvPoolAtari(env_config, seeds, groups)`: see the module docstring. EnvPool seeds
  its environment j with seed + j, so each group's pool takes its first environment's
  seed."""

  def __init__(self, env_config: ml_collections.ConfigDict, seeds: Sequence[int],
               groups: Sequence[slice]):
    self._pools = {(g.start, g.stop): _make_pool(env_config, int(seeds[g.start]),
                                                 g.stop - g.start) for g in groups}
    pool = next(iter(self._pools.values()))
    stack, height, width = pool.observation_space.shape
    self._stacked = env_config.frame_stack > 1
    self.observation_shape = (height, width, stack) if self._stacked else (height, width)
    self.observation_dtype = np.dtype(pool.observation_space.dtype)
    self.num_actions = int(pool.action_space.n)
    self.frames_per_step = int(env_config.frame_skip)

  def _write(self, observations: np.ndarray, rows, stacks):
    """EnvPool's [n, k, H, W] into rows of [N, H, W, k] (or [N, H, W] unstacked)."""
    observations[rows] = stacks.transpose(0, 2, 3, 1) if self._stacked else stacks[:, 0]

  def reset(self, observations: np.ndarray):
    for (start, _), pool in self._pools.items():
      stacks, info = pool.reset()
      self._write(observations, info['env_id'] + start, stacks)

  def step(self, group: slice, actions: np.ndarray, rewards: np.ndarray, dones: np.ndarray,
           truncations: np.ndarray, game_overs: np.ndarray, observations: np.ndarray):
    pool = self._pools[(group.start, group.stop)]
    stacks, reward, terminated, truncated, info = pool.step(np.asarray(actions, np.int32))
    rows = info['env_id'] + group.start
    ended = terminated | truncated
    rewards[rows] = reward
    dones[rows] = ended
    truncations[rows] = truncated & ~terminated
    game_overs[rows] = ended  # Whole games: episodic lives are refused with EnvPool.
    self._write(observations, rows, stacks)
    if ended.any():
      firsts, first_info = pool.reset(info['env_id'][ended])
      self._write(observations, first_info['env_id'] + group.start, firsts)

  def frame(self, index: int):  # pylint: disable=unused-argument
    """None: EnvPool keeps no RGB screen (films need env.backend='python')."""
    return None

  def close(self):
    for pool in self._pools.values():
      close = getattr(pool, 'close', None)
      if close:
        close()
