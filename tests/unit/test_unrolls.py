"""Unroll assembly on the learner (overlap, episode ends, run-id resets), with the
per-environment state and episode statistics it runs beside."""

import numpy as np

from seed_graph.nodes.learner import agent_states
from seed_graph.algos.vtrace import unrolls as unrolls_lib


class _Learner:
  """The learner's per-step bookkeeping for a few environments, without a model."""

  def __init__(self, num_envs=3, unroll_length=3):
    self.states = agent_states.AgentStates(num_envs, core_state_shapes=[(5,)])
    self.episodes = agent_states.EpisodeStatistics(num_envs, num_envs, window=100)
    self.builder = unrolls_lib.UnrollBuilder(
        num_envs, unroll_length, observation_shape=(2,), observation_dtype=np.float32,
        num_actions=4, core_state_shapes=[(5,)])

  def begin(self, env_ids, run_ids, rewards, dones):
    new_run = self.states.begin_step(env_ids, run_ids)
    finished_ids, finished = self.episodes.update(env_ids, rewards, dones, new_run)
    self.builder.reset(env_ids[new_run])
    return env_ids[new_run], finished_ids, finished


def _step(learner, env_ids, t, run_ids, dones=None):
  """Runs one learner step: observations encode (env, t); actions = t."""
  env_ids = np.asarray(env_ids)
  rows = len(env_ids)
  dones = np.zeros(rows, bool) if dones is None else np.asarray(dones)
  rewards = np.full(rows, float(t), np.float32)
  _, finished_ids, finished = learner.begin(env_ids, np.asarray(run_ids, np.int64), rewards,
                                            dones)
  prev_actions = learner.states.prev_actions[env_ids]
  before = learner.states.gather_core_states(env_ids)
  actions = np.full(rows, t, np.int32)
  unrolls = learner.builder.record(env_ids, {
      'prev_actions': prev_actions, 'rewards': rewards, 'dones': dones,
      'truncations': np.zeros(rows, bool),
      'observations': np.stack([env_ids, np.full(rows, t)], axis=1).astype(np.float32),
      'actions': actions, 'behaviour_logits': np.zeros((rows, 4), np.float32),
      'policy_versions': np.zeros(rows, np.int64),
  }, before)
  # The new recurrent state marks which step produced it.
  learner.states.end_step(env_ids, actions, [np.full((rows, 5), t + 1, np.float32)])
  return unrolls, finished_ids, finished


def test_unrolls_overlap_by_one_step():
  learner = _Learner(unroll_length=3)
  got = []
  for t in range(10):
    unrolls, *_ = _step(learner, [0, 2], t, run_ids=[7, 7])
    got.extend(unrolls)
  env0 = [u for u in got if u.env_id == 0]
  assert len(env0) == 3  # Steps 0-3, 3-6, 6-9.
  for index, unroll in enumerate(env0):
    start = 3 * index
    np.testing.assert_array_equal(unroll.steps['observations'][:, 1],
                                  np.arange(start, start + 4))
    np.testing.assert_array_equal(unroll.steps['actions'], np.arange(start, start + 4))
    # prev_action of each step is the action of the step before (0 at the very start).
    np.testing.assert_array_equal(unroll.steps['prev_actions'][1:], np.arange(start, start + 3))
    # Initial state: the state before the first step (written by step start - 1).
    np.testing.assert_array_equal(unroll.initial_state[0], np.full(5, float(start)))
  assert env0[1].steps['observations'][0, 1] == env0[0].steps['observations'][-1, 1]


def test_episode_end_inside_an_unroll_is_kept_with_done_flag():
  learner = _Learner(num_envs=1, unroll_length=4)
  got = []
  for t in range(5):
    unrolls, _, finished = _step(learner, [0], t, run_ids=[1], dones=[t == 2])
    got.extend(unrolls)
    if t == 2:
      np.testing.assert_array_equal(finished, [1.0 + 2.0])  # Rewards of steps 1 and 2.
  (unroll,) = got
  np.testing.assert_array_equal(unroll.steps['dones'], [False, False, True, False, False])
  assert learner.episodes.snapshot()['episode_return'] == 3.0


def test_changed_run_id_resets_that_environment_only():
  learner = _Learner(num_envs=2, unroll_length=3)
  for t in range(2):
    _step(learner, [0, 1], t, run_ids=[5, 5])
  assert learner.builder.positions.tolist() == [2, 2]
  # Actor of env 1 restarted: new run id.
  reset_ids, _, finished = learner.begin(
      np.array([0, 1]), np.array([5, 6]), np.zeros(2, np.float32), np.zeros(2, bool))
  assert reset_ids.tolist() == [1]
  assert finished.size == 0
  assert learner.builder.positions.tolist() == [2, 0]
  assert learner.states.prev_actions.tolist() == [1, 0]
  np.testing.assert_array_equal(learner.states.core_states[0][1], np.zeros(5))
  np.testing.assert_array_equal(learner.states.core_states[0][0], np.full(5, 2.0))


def test_reset_discards_partial_unroll():
  learner = _Learner(num_envs=1, unroll_length=3)
  got = []
  for t in range(2):
    got += _step(learner, [0], t, run_ids=[1])[0]
  for t in range(10, 14):
    got += _step(learner, [0], t, run_ids=[2])[0]
  (unroll,) = got
  np.testing.assert_array_equal(unroll.steps['observations'][:, 1], [10, 11, 12, 13])
  np.testing.assert_array_equal(unroll.initial_state[0], np.zeros(5))


def test_stack_unrolls_is_time_major():
  learner = _Learner(num_envs=2, unroll_length=2)
  got = []
  for t in range(3):
    got += _step(learner, [0, 1], t, run_ids=[1, 1])[0]
  steps, initial = unrolls_lib.stack_unrolls(got)
  assert steps['observations'].shape == (3, 2, 2)
  assert steps['actions'].shape == (3, 2)
  assert initial[0].shape == (2, 5)
