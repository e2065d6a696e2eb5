"""The last k observations of a dm_env environment, stacked: what `env.frame_stack`
does for every environment (V-trace's actors; R2D2 stacks on its learner instead, by the
same rule: `seed_graph.algos.frame_stacking`).

Observations without a channel axis (`[H, W]` frames, `[N]` vectors) get a new last
axis of size k (`[H, W, k]`, what the convolutional torsos read); images with channels
(`[H, W, C]`) get theirs concatenated (`[H, W, C * k]`, Football's stacked mini-map), oldest
first either way. At the start of an episode its first observation fills every slot, so
the agent never sees the previous episode's. Frame counting (`frames_per_step`) and
filming (`frame()`) pass through.
"""

import dm_env
from dm_env import specs
import numpy as np

from seed_graph.algos import frame_stacking


class FrameStack(dm_env.Environment):
  """`FrameStack(env, k)`: see the module docstring."""

  def __init__(self, env: dm_env.Environment, num_frames: int):
    if num_frames < 1:
      raise ValueError(f'frame stack must be at least 1, got {num_frames}')
    self._env = env
    self._num_frames = num_frames
    self.frames_per_step = getattr(env, 'frames_per_step', 1)
    spec = env.observation_spec()
    self._channels = len(spec.shape) == 3
    # Kept as [..., k] (channels: [H, W, C, k]); `_observation` lays it out.
    self._stack = np.zeros(tuple(spec.shape) + (num_frames,), spec.dtype)
    self._observation_spec = specs.Array(self._observation().shape, spec.dtype,
                                         name=spec.name)

  def _observation(self) -> np.ndarray:
    if self._channels:  # [H, W, C, k] -> [H, W, k, C] -> [H, W, k * C]: oldest first.
      height, width = self._stack.shape[:2]
      return np.ascontiguousarray(np.moveaxis(self._stack, -1, 2)).reshape(
          height, width, -1)
    return self._stack.copy()  # Callers may keep observations while the stack moves on.

  def _push(self, timestep: dm_env.TimeStep, first: bool) -> dm_env.TimeStep:
    frame_stacking.push(self._stack[np.newaxis], timestep.observation[np.newaxis],
                        np.array([first]))
    return timestep._replace(observation=self._observation())

  def reset(self) -> dm_env.TimeStep:
    return self._push(self._env.reset(), first=True)

  def step(self, action) -> dm_env.TimeStep:
    return self._push(self._env.step(action), first=False)

  @property
  def game_over(self) -> bool:
    """Whether the last episode end also ended the game (see `envs.contract`)."""
    return getattr(self._env, 'game_over', True)

  def frame(self):
    frame = getattr(self._env, 'frame', None)
    return frame() if frame else None

  def observation_spec(self):
    return self._observation_spec

  def action_spec(self):
    return self._env.action_spec()

  def close(self):
    close = getattr(self._env, 'close', None)
    if close:
      close()
