"""An example of your own environment: a corridor of `length` cells, a dm_env.

The agent starts in the middle; action 0 steps left, action 1 steps right. Reaching the
right end pays +1 and ends the episode, the left end pays -1 and ends it, and after
`max_steps` the episode is cut (a truncation). The observation is the position, one-hot.

Train on it without editing seed_graph (the preset `random_walk_vtrace` does this):

    config.env.name = 'custom'
    config.env.factory = 'examples.random_walk:make_env'   # module:function
    config.env.kwargs = ml_collections.ConfigDict({'length': 9})

The factory is called as `make_env(seed=..., **env.kwargs)` in every actor and evaluator
process, and once in the launcher to check it; it may return a `dm_env.Environment` (as
here) or a `gymnasium.Env`. What an environment must provide is in
`seed_graph/envs/contract.py`.
"""

import dm_env
from dm_env import specs
import numpy as np


class RandomWalk(dm_env.Environment):

  def __init__(self, length: int, max_steps: int, seed: int):
    self._length = length
    self._max_steps = max_steps
    self._rng = np.random.default_rng(seed)  # Unused by the dynamics; kept per env.
    self._position = length // 2
    self._steps = 0
    self.frames_per_step = 1  # Optional: emulator frames per step, for frame counting.

  def _observation(self) -> np.ndarray:
    observation = np.zeros(self._length, np.float32)
    observation[self._position] = 1.0
    return observation

  def reset(self) -> dm_env.TimeStep:
    self._position = self._length // 2
    self._steps = 0
    return dm_env.restart(self._observation())

  def step(self, action) -> dm_env.TimeStep:
    self._position += 1 if int(action) == 1 else -1
    self._steps += 1
    if self._position == self._length - 1:
      return dm_env.termination(1.0, self._observation())
    if self._position == 0:
      return dm_env.termination(-1.0, self._observation())
    if self._steps >= self._max_steps:
      return dm_env.truncation(0.0, self._observation())
    return dm_env.transition(0.0, self._observation())

  def observation_spec(self):
    return specs.Array((self._length,), np.float32, name='position')

  def action_spec(self):
    return specs.DiscreteArray(2, name='left_or_right')


def make_env(seed: int, length: int = 9, max_steps: int = 50) -> RandomWalk:
  return RandomWalk(length, max_steps, seed)
