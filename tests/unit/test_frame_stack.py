"""Actor-side frame stacking (`env.frame_stack`): order, episode starts, specs."""

import dm_env
from dm_env import specs
import numpy as np

from seed_graph.programs import registry
from seed_graph import envs
from seed_graph.envs import frame_stack


class _Counter(dm_env.Environment):
  """Frame t of an episode is a 2x3 array filled with t; episodes last 3 steps."""
  frames_per_step = 4

  def __init__(self):
    self._t = 0

  def reset(self):
    self._t = 0
    return dm_env.restart(np.zeros((2, 3), np.uint8))

  def step(self, action):
    self._t += 1
    observation = np.full((2, 3), self._t, np.uint8)
    return dm_env.termination(1.0, observation) if self._t == 3 else dm_env.transition(
        1.0, observation)

  def observation_spec(self):
    return specs.Array((2, 3), np.uint8, name='observation')

  def action_spec(self):
    return specs.DiscreteArray(2)


def test_the_newest_frame_is_last_and_an_episode_start_fills_every_slot():
  env = frame_stack.FrameStack(_Counter(), 3)
  assert env.observation_spec().shape == (2, 3, 3) and env.frames_per_step == 4
  first = env.reset().observation
  assert first.shape == (2, 3, 3) and not first.any()
  seen = [env.step(0).observation for _ in range(3)]
  assert list(seen[0][0, 0]) == [0, 0, 1]
  assert list(seen[2][0, 0]) == [1, 2, 3]
  assert list(first[0, 0]) == [0, 0, 0]  # Earlier observations are copies, not views.
  restarted = env.reset().observation
  assert list(restarted[1, 2]) == [0, 0, 0]  # Nothing of the last episode remains.


def test_atari_with_a_stack_of_four():
  config = registry.default_config('vtrace', env='atari').env
  config.frame_stack = 4
  envs.validate_config(config)
  env = envs.make_environment(config, seed=0)
  try:
    observation = env.reset().observation
    assert observation.shape == (84, 84, 4) and observation.dtype == np.uint8
    assert env.frames_per_step == 4 and env.action_spec().num_values == 18
    assert env.step(0).observation.shape == (84, 84, 4)
    assert env.frame().shape[-1] == 3
    assert envs.read_spec(config).observation_shape == (84, 84, 4)
  finally:
    env.close()
