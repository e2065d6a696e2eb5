"""The last k observations of a dm_env environment, stacked on a new last axis.

`[H, W]` frames become `[H, W, k]` (channels last, what the convolutional torsos read).
At the start of an episode the first frame fills every slot, so the agent never sees the
previous episode's frames. Frame counting (`frames_per_step`) and filming (`frame()`) pass
through.
"""

import dm_env
from dm_env import specs
import numpy as np


class FrameStack(dm_env.Environment):
  """`FrameStack(env, k)`: see the module docstring."""

  def __init__(self, env: dm_env.Environment, num_frames: int):
    if num_frames < 1:
      raise ValueError(f'frame stack must be at least 1, got {num_frames}')
    self._env = env
    self.frames_per_step = getattr(env, 'frames_per_step', 1)
    spec = env.observation_spec()
    self._stack = np.zeros(tuple(spec.shape) + (num_frames,), spec.dtype)
    self._observation_spec = specs.Array(self._stack.shape, spec.dtype, name=spec.name)

  def _push(self, timestep: dm_env.TimeStep, first: bool) -> dm_env.TimeStep:
    if first:
      self._stack[...] = timestep.observation[..., np.newaxis]
    else:
      self._stack[..., :-1] = self._stack[..., 1:]
      self._stack[..., -1] = timestep.observation
    # A copy: callers may keep observations while the stack moves on.
    return timestep._replace(observation=self._stack.copy())

  def reset(self) -> dm_env.TimeStep:
    return self._push(self._env.reset(), first=True)

  def step(self, action) -> dm_env.TimeStep:
    return self._push(self._env.step(action), first=False)

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
