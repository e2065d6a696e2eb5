"""CleanRL's Atari episodes as options: a lost life ends the training episode
(`env.episodic_life`) but not the game, whose return is what is reported; FIRE starts
every episode (`env.fire_reset`)."""

import numpy as np
import pytest

from seed_graph.nodes.learner import agent_states
from seed_graph import envs
from seed_graph.envs import backends as env_backends
from seed_graph.programs import registry
from tests import helpers


def _breakout(episodic_life=False, fire_reset=False):
  config = registry.default_config('vtrace', env='atari').env
  config.game = 'Breakout'
  config.sticky_action_probability = 0.0
  config.full_action_space = False
  config.episodic_life = episodic_life
  config.fire_reset = fire_reset
  return config


def _episode_ends(env, actions):
  """(step, game_over, discount) of every episode end while playing `actions`."""
  ends = []
  env.reset()
  for step, action in enumerate(actions):
    timestep = env.step(action)
    if timestep.last():
      ends.append((step, env.game_over, timestep.discount))
      env.reset()
  return ends


def test_every_lost_life_ends_an_episode_and_five_end_a_game():
  helpers.needs('ale_py')
  env = envs.make_environment(_breakout(episodic_life=True, fire_reset=True), seed=1)
  actions = np.random.default_rng(0).integers(0, 4, 2500)
  ends = _episode_ends(env, actions)
  game_overs = [i for i, (_, game_over, _) in enumerate(ends) if game_over]
  assert len(game_overs) >= 2
  # Breakout has 5 lives: 4 episodes end with a life lost, the 5th ends the game.
  assert np.diff([-1] + game_overs).tolist() == [5] * len(game_overs)
  assert all(discount == 0 for _, _, discount in ends)  # Terminal: no bootstrap.
  env.close()


@pytest.mark.parametrize('fire_reset', [False, True])
def test_fire_reset_serves_the_ball(fire_reset):
  """Never pressing FIRE, Breakout's ball is never served, so no life is ever lost;
  with `fire_reset` each episode starts with it served, so lives are lost."""
  helpers.needs('ale_py')
  env = envs.make_environment(_breakout(episodic_life=True, fire_reset=fire_reset), seed=2)
  ends = _episode_ends(env, np.zeros(600, int))
  assert bool(ends) == fire_reset
  env.close()


def test_the_actor_rows_say_which_ends_are_game_overs():
  helpers.needs('ale_py')
  batch = env_backends.make(_breakout(episodic_life=True, fire_reset=True), [0, 1],
                            [slice(0, 2)])
  observations = np.zeros((2,) + batch.observation_shape, batch.observation_dtype)
  rewards, dones, truncations, game_overs = (np.zeros(2, t) for t in (np.float32, bool,
                                                                        bool, bool))
  batch.reset(observations)
  rng = np.random.default_rng(3)
  lives_lost = games_over = 0
  for _ in range(1500):
    batch.step(slice(0, 2), rng.integers(0, 4, 2), rewards, dones, truncations, game_overs,
               observations)
    assert not (game_overs & ~dones).any()  # A game over is always an episode end.
    lives_lost += int((dones & ~game_overs).sum())
    games_over += int(game_overs.sum())
  assert games_over >= 1 and lives_lost >= 4 * games_over
  batch.close()


def test_returns_are_counted_per_whole_game():
  episodes = agent_states.EpisodeStatistics(num_envs=1, num_training_envs=1, window=10)
  ids, no_new_run = np.zeros(1, np.int64), np.zeros(1, bool)
  for reward, game_over in ((2.0, False), (3.0, False), (1.0, True), (4.0, True)):
    episodes.update(ids, np.full(1, reward, np.float32), np.array([game_over]), no_new_run)
  stats = episodes.snapshot()
  # Lives ended after 2 and 3 points; the games' returns are 6 and 4.
  assert stats['train_episodes'] == 2 and stats['episode_return'] == 5.0
