"""Gymnasium environments as dm_env environments with one array observation."""

import re
import sys
import warnings

import dm_env
from dm_env import specs
import gymnasium
import numpy as np

from seed_graph.envs import contract


_ANSI_ESCAPE = re.compile(r'\x1b\[[0-9;]*m')


def plain_warnings_off_a_terminal() -> None:
  """Gymnasium colours its own warnings (`gymnasium.logger.warn` puts ANSI codes in the
  message text), which a log file or a piped console shows as raw `\x1b[33m`. Python's
  warning display is wrapped here, in our process, so a warning written anywhere but a
  terminal loses its colour codes; the installed package is left as it is. Idempotent."""
  shown = warnings.showwarning
  if getattr(shown, 'strips_colour', False):
    return

  def show(message, category, filename, lineno, file=None, line=None):
    stream = sys.stderr if file is None else file
    if not getattr(stream, 'isatty', lambda: False)():
      message = _ANSI_ESCAPE.sub('', str(message))
    shown(message, category, filename, lineno, file, line)

  show.strips_colour = True
  warnings.showwarning = show


# At import, not in the adapter: `gymnasium.make`'s checks warn before any adapter exists,
# and every module here that makes a Gymnasium environment imports this one.
plain_warnings_off_a_terminal()


class GymnasiumEnv(dm_env.Environment):
  """Adapts a gymnasium env with a Box observation and a Discrete action space (others
  raise `contract.UnsupportedEnvironment`, naming `where` the env came from).

  Termination and time-limit truncation both end the episode (`dm_env.termination` vs
  `dm_env.truncation`, so discount 0 vs 1 is kept for users who want it). `frames_per_step`
  is how many emulator frames one step consumes (frame skip), for frame counting.
  """

  def __init__(self, gym_env, seed: int, frames_per_step: int = 1,
               where: str = 'environment'):
    self._env = gym_env
    self._seed = seed
    self._first_reset = True
    self.frames_per_step = frames_per_step
    space = gym_env.observation_space
    if not isinstance(space, gymnasium.spaces.Box):
      raise contract.UnsupportedEnvironment(
          f'{where}: observation space {space} is not supported; only one array (a Box) '
          'is (dict or tuple observations: gymnasium.wrappers.FlattenObservation)')
    contract.check_observation(where, space.shape, space.dtype)
    if not isinstance(gym_env.action_space, gymnasium.spaces.Discrete):
      raise contract.UnsupportedEnvironment(
          f'{where}: action space {gym_env.action_space} is not supported; only '
          'Discrete action spaces are')
    self._observation_spec = specs.Array(space.shape, space.dtype, name='observation')
    self._action_spec = specs.DiscreteArray(int(gym_env.action_space.n), name='action')

  def reset(self) -> dm_env.TimeStep:
    if self._first_reset:
      observation, _ = self._env.reset(seed=self._seed)
      self._first_reset = False
    else:
      observation, _ = self._env.reset()
    return dm_env.restart(np.asarray(observation, self._observation_spec.dtype))

  def step(self, action) -> dm_env.TimeStep:
    observation, reward, terminated, truncated, _ = self._env.step(int(action))
    observation = np.asarray(observation, self._observation_spec.dtype)
    if terminated:
      return dm_env.termination(reward, observation)
    if truncated:
      return dm_env.truncation(reward, observation)
    return dm_env.transition(reward, observation)

  def frame(self):
    """The screen as RGB (see `contract`), if the env was made with
    render_mode='rgb_array'; else None."""
    if getattr(self._env, 'render_mode', None) != 'rgb_array':
      return None
    return np.asarray(self._env.render(), np.uint8)

  def observation_spec(self):
    return self._observation_spec

  def action_spec(self):
    return self._action_spec

  def close(self):
    self._env.close()
