"""Per-environment state and episode statistics on the learner."""

import numpy as np

from seed_graph.nodes.learner import agent_states


def test_episode_statistics_split_training_and_evaluation_with_one_window():
  episodes = agent_states.EpisodeStatistics(num_envs=4, num_training_envs=2, window=2)
  ids = np.arange(4)
  no_run_change = np.zeros(4, bool)
  for reward in (1.0, 2.0, 4.0):
    episodes.update(ids, np.full(4, reward, np.float32), np.ones(4, bool), no_run_change)
  stats = episodes.snapshot()
  # Two environments of each kind ended 3 episodes each; the window keeps the last 2.
  assert stats['train_episodes'] == 6 and stats['eval_episodes'] == 6
  assert stats['episode_return'] == 4.0 and stats['eval_episode_return'] == 4.0


def test_evaluation_episodes_can_have_a_window_of_their_own():
  episodes = agent_states.EpisodeStatistics(num_envs=2, num_training_envs=1, window=3,
                                          eval_window=1)
  for reward in (1.0, 2.0, 6.0):
    episodes.update(np.arange(2), np.full(2, reward, np.float32), np.ones(2, bool),
                    np.zeros(2, bool))
  stats = episodes.snapshot()
  assert stats['episode_return'] == 3.0 and stats['eval_episode_return'] == 6.0
  assert stats['train_episodes'] == stats['eval_episodes'] == 3


def test_a_new_run_drops_the_unfinished_episode():
  episodes = agent_states.EpisodeStatistics(num_envs=1, num_training_envs=1, window=10)
  ids = np.zeros(1, np.int64)
  episodes.update(ids, np.full(1, 5.0, np.float32), np.zeros(1, bool), np.zeros(1, bool))
  # The new run's first step carries the old run's reward and done: neither counts.
  finished_ids, _ = episodes.update(ids, np.full(1, 7.0, np.float32), np.ones(1, bool),
                                    np.ones(1, bool))
  assert finished_ids.size == 0
  episodes.update(ids, np.full(1, 1.0, np.float32), np.ones(1, bool), np.zeros(1, bool))
  assert episodes.snapshot()['episode_return'] == 1.0
  assert episodes.snapshot()['eval_episode_return'] is None


def test_begin_step_reports_new_runs_per_row():
  states = agent_states.AgentStates(3, core_state_shapes=[(2,)])
  first = states.begin_step(np.array([0, 2]), np.array([9, 9], np.int64))
  assert first.tolist() == [True, True]
  states.end_step(np.array([0, 2]), np.array([1, 1], np.int32), [np.ones((2, 2), np.float32)])
  again = states.begin_step(np.array([0, 2]), np.array([9, 8], np.int64))
  assert again.tolist() == [False, True]
  assert states.prev_actions.tolist() == [1, 0, 0]
  np.testing.assert_array_equal(states.core_states[0][2], np.zeros(2))
