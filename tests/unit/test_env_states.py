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


def test_a_resumed_learner_counts_no_game_it_did_not_see_begin():
  # Saved while envs 0-2 were in actor runs 11, 12, 13. After the learner's restart env 0
  # (still run 11) is mid-game; env 1 (run 12) is first seen on the step that ends its
  # game; env 2's actor started afresh meanwhile (run 99: a new game, which counts).
  before = agent_states.EpisodeStatistics(num_envs=3, num_training_envs=3, window=10)
  ids = np.arange(3)
  runs = np.array([11, 12, 13], np.int64)
  before.update(ids, np.zeros(3, np.float32), np.ones(3, bool), np.ones(3, bool), runs)
  before.update(ids, np.full(3, 20.0, np.float32), np.ones(3, bool), np.zeros(3, bool),
                runs)
  episodes = agent_states.EpisodeStatistics(num_envs=3, num_training_envs=3, window=10)
  episodes.restore(before.state())
  runs = np.array([11, 12, 99], np.int64)
  step = lambda rewards, overs, new_run: episodes.update(
      ids, np.array(rewards, np.float32), np.array(overs), np.array(new_run), runs)
  step([0, 0, 0], [False, True, False], [True, True, True])  # First sight: all new runs.
  step([3, 2, 1], [True, False, False], [False, False, False])
  # Env 0's game began before the restart: its 3 points are not a game's return.
  assert episodes.state()['train']['returns'] == [20.0, 20.0, 20.0]
  step([5, 4, 6], [True, True, True], [False, False, False])
  # Env 0's next game, env 1's game begun after the step it was first seen on, env 2's.
  assert episodes.state()['train']['returns'][3:] == [5.0, 6.0, 7.0]


def test_a_fresh_learner_and_one_resumed_without_run_ids_count_every_game():
  for saved in (None, {'train': {'returns': [1.0], 'episodes': 1}}):  # An older save.
    episodes = agent_states.EpisodeStatistics(num_envs=1, num_training_envs=1, window=10)
    if saved:
      episodes.restore(saved)
    ids, run = np.zeros(1, np.int64), np.full(1, 7, np.int64)
    episodes.update(ids, np.zeros(1, np.float32), np.zeros(1, bool), np.ones(1, bool), run)
    episodes.update(ids, np.full(1, 4.0, np.float32), np.ones(1, bool), np.zeros(1, bool),
                    run)
    assert episodes.state()['train']['returns'][-1] == 4.0


def test_game_lengths_and_games_the_time_limit_ended_are_counted_and_saved():
  episodes = agent_states.EpisodeStatistics(num_envs=2, num_training_envs=1, window=10,
                                          frames_per_step=4)
  ids, run = np.arange(2), np.full(2, 5, np.int64)
  never = np.zeros(2, bool)
  step = lambda overs, truncations, new_run=never: episodes.update(
      ids, np.ones(2, np.float32), np.array(overs), new_run, run, np.array(truncations))
  step([False, False], [False, False], np.ones(2, bool))  # First sight: not counted.
  for _ in range(2):
    step([False, False], [False, False])
  # A 3-step game that ends by itself (env 0) and one the time limit ends (env 1).
  step([True, True], [False, True])
  step([False, False], [False, False])
  step([True, False], [True, False])  # Env 0's second game: 2 steps, cut.
  stats = episodes.snapshot()
  assert stats['episode_frames'] == (3 + 2) * 4 / 2 and stats['eval_episode_frames'] == 12
  assert stats['time_limited_games'] == 1 and stats['train_episodes'] == 2
  resumed = agent_states.EpisodeStatistics(num_envs=2, num_training_envs=1, window=10,
                                         frames_per_step=4)
  resumed.restore(episodes.state())
  assert resumed.snapshot() == stats
  # A save from before lengths were kept: returns restored, no lengths yet.
  older = agent_states.EpisodeStatistics(num_envs=2, num_training_envs=1, window=10)
  older.restore({'train': {'returns': [1.0], 'episodes': 1}})
  assert older.snapshot()['episode_frames'] is None
  assert older.snapshot()['time_limited_games'] == 0


def _play_before_a_restart(in_flight: bool):
  """Envs 0-1 in actor runs 11, 12, each 2 steps into a game (3 points each) when saved."""
  before = agent_states.EpisodeStatistics(num_envs=2, num_training_envs=2, window=10)
  ids, runs = np.arange(2), np.array([11, 12], np.int64)
  before.update(ids, np.zeros(2, np.float32), np.zeros(2, bool), np.ones(2, bool), runs)
  for reward in (1.0, 2.0):
    before.update(ids, np.full(2, reward, np.float32), np.zeros(2, bool), np.zeros(2, bool),
                  runs)
  return before.state(in_flight=in_flight)


def test_a_game_in_flight_at_a_drained_save_goes_on_counting_after_the_restart():
  episodes = agent_states.EpisodeStatistics(num_envs=2, num_training_envs=2, window=10)
  episodes.restore(_play_before_a_restart(in_flight=True))
  ids = np.arange(2)
  runs = np.array([11, 99], np.int64)  # Env 1's actor started afresh meanwhile.
  # The first step each env sends the new learner: the fresh learner's AgentStates calls
  # every row a new run. Env 0's is its game's next step (4 points, and the game ends);
  # env 1's carries the old run's reward and done, which do not count.
  finished, returns = episodes.update(ids, np.array([4.0, 50.0], np.float32),
                                      np.array([True, True]), np.ones(2, bool), runs)
  assert finished.tolist() == [0] and returns.tolist() == [7.0]
  stats = episodes.snapshot()
  assert stats['episode_return'] == 7.0 and stats['episode_frames'] == 3
  episodes.update(ids, np.full(2, 2.0, np.float32), np.ones(2, bool), np.zeros(2, bool),
                  runs)
  assert episodes.state()['train']['returns'] == [7.0, 2.0, 2.0]
  # The next save holds the same runs, so a later restart tells mid-game envs apart.
  assert episodes.state()['run_ids'] == [11, 99]


def test_without_a_drained_save_a_game_in_flight_is_not_counted():
  for saved in (_play_before_a_restart(in_flight=False),
                dict(_play_before_a_restart(in_flight=True), in_flight={'returns': [1.0]})):
    episodes = agent_states.EpisodeStatistics(num_envs=2, num_training_envs=2, window=10)
    episodes.restore(saved)
    ids, runs = np.arange(2), np.array([11, 12], np.int64)
    episodes.update(ids, np.full(2, 4.0, np.float32), np.zeros(2, bool), np.ones(2, bool),
                    runs)
    finished, _ = episodes.update(ids, np.ones(2, np.float32), np.ones(2, bool),
                                  np.zeros(2, bool), runs)
    assert finished.size == 0 and episodes.snapshot()['train_episodes'] == 0


def test_a_partial_game_stays_partial_across_a_second_restart():
  # Env 0's game began before a crash (not counted); a planned restart comes mid-game.
  first = agent_states.EpisodeStatistics(num_envs=1, num_training_envs=1, window=10)
  first.restore(dict(_play_before_a_restart(in_flight=False), run_ids=[11]))
  ids, run = np.zeros(1, np.int64), np.full(1, 11, np.int64)
  first.update(ids, np.ones(1, np.float32), np.zeros(1, bool), np.ones(1, bool), run)
  first.update(ids, np.ones(1, np.float32), np.zeros(1, bool), np.zeros(1, bool), run)
  second = agent_states.EpisodeStatistics(num_envs=1, num_training_envs=1, window=10)
  second.restore(first.state(in_flight=True))
  second.update(ids, np.ones(1, np.float32), np.ones(1, bool), np.ones(1, bool), run)
  assert second.snapshot()['train_episodes'] == 0
  second.update(ids, np.full(1, 3.0, np.float32), np.ones(1, bool), np.zeros(1, bool), run)
  assert second.state()['train']['returns'] == [3.0]
