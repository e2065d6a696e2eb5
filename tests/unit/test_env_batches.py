"""Actor environment backends (`env.backend`): both keep one contract, group by group."""

import numpy as np
import pytest

from seed_graph.programs import registry
from seed_graph.configs import cartpole_vtrace
from seed_graph.envs import backends as env_backends
from seed_graph.config import schema as config_schema
from seed_graph import envs
from seed_graph.nodes import actor
from tests import helpers

BACKENDS = ('python', 'envpool')


def _atari(backend, frame_stack=4, max_episode_frames=108_000):
  config = registry.default_config('vtrace', env='atari').env
  config.backend = backend
  config.frame_stack = frame_stack
  config.max_episode_frames = max_episode_frames
  return config


def _buffers(batch, size):
  observations = np.zeros((size,) + batch.observation_shape, batch.observation_dtype)
  return (np.zeros(size, np.float32), np.zeros(size, bool), np.zeros(size, bool),
          np.zeros(size, bool), observations)


@pytest.mark.parametrize('frame_stack,full_action_space,num_actions',
                         [(1, True, 18), (4, True, 18), (4, False, 6)])
def test_envpool_specs_are_the_python_backends(frame_stack, full_action_space, num_actions):
  helpers.needs('envpool')
  python_config, envpool_config = (_atari(backend, frame_stack) for backend in BACKENDS)
  python_config.full_action_space = envpool_config.full_action_space = full_action_space
  info = envs.read_spec(python_config)
  batch = env_backends.make(envpool_config, [5, 6], [slice(0, 2)])
  try:
    assert batch.observation_shape == info.observation_shape
    assert batch.observation_dtype == info.observation_dtype
    assert batch.num_actions == info.num_actions == num_actions
    assert batch.frames_per_step == info.frames_per_step == 4
  finally:
    batch.close()


@pytest.mark.parametrize('backend', BACKENDS)
def test_an_episode_ends_and_restarts_in_one_step_with_no_step_lost(backend):
  helpers.needs(backend if backend == 'envpool' else 'ale_py')
  """Episodes capped at 200 frames (50 steps) end as truncations, each done row holding
  the next episode's first observation (the first frame in every stacked slot). EnvPool
  caps agent steps after the no-op starts: exactly every 50 steps; ale-py counts the
  no-op frames too: 50 steps less up to 30 frames."""
  batch = env_backends.make(_atari(backend, max_episode_frames=200), range(3),
                           [slice(0, 3)])
  rewards, dones, truncations, game_overs, observations = _buffers(batch, 3)
  batch.reset(observations)
  rng = np.random.default_rng(0)
  lengths, starts = [], np.zeros(3, int)
  try:
    for step in range(1, 121):
      batch.step(slice(0, 3), rng.integers(0, 18, 3), rewards, dones, truncations, game_overs,
                 observations)
      assert (truncations == dones).all()
      for i in np.flatnonzero(dones):
        lengths.append(step - starts[i])
        starts[i] = step
        assert (observations[i] == observations[i, ..., :1]).all()  # A first observation.
    assert len(lengths) >= 6
    shortest = 50 if backend == 'envpool' else 50 - 30 // 4
    assert all(shortest <= length <= 50 for length in lengths), lengths
  finally:
    batch.close()


@pytest.mark.parametrize('backend', BACKENDS)
def test_a_step_writes_its_own_groups_rows_only(backend):
  helpers.needs(backend if backend == 'envpool' else 'ale_py')
  groups = [slice(0, 2), slice(2, 3)]
  batch = env_backends.make(_atari(backend), range(3), groups)
  rewards, dones, truncations, game_overs, observations = _buffers(batch, 3)
  try:
    batch.reset(observations)
    assert observations.any(axis=(1, 2, 3)).all()  # Every environment shows a screen.
    rewards[:] = 7.0
    observations[2] = 0
    for _ in range(40):  # Long enough for the paddles to move.
      batch.step(groups[0], np.array([3, 4]), rewards, dones, truncations, game_overs,
                 observations)
    assert rewards[2] == 7.0 and not observations[2].any()
    assert (rewards[:2] != 7.0).all()
    assert not (observations[:2] == observations[:2, ..., :1]).all()  # Moved on.
  finally:
    batch.close()


@pytest.mark.parametrize('env_config,sizes', [
    (_atari('python'), (18, 4)), (_atari('envpool'), (18, 4)),
    (cartpole_vtrace.get_config().env, (2, 1))])
def test_an_actors_environment_batch_reports_its_backends_sizes(env_config, sizes):
  if env_config.backend == 'envpool':
    helpers.needs('envpool')
  # What an env-only baseline (benchmarks/paired.py) reads to step as an actor does.
  batch = actor.ActorEnvironments(env_config, np.arange(2), seed=3, is_eval=False)
  try:
    assert (batch.num_actions, batch.frames_per_step) == sizes
  finally:
    batch.close()


def test_a_bad_backend_is_named():
  config = _atari('gym')
  with pytest.raises(ValueError, match="backend: expected one of \\('python', 'envpool'\\)"):
    config_schema.check(config, envs.keys('atari'))
  cartpole = cartpole_vtrace.get_config().env
  cartpole.backend = 'envpool'
  with pytest.raises(ValueError, match="env.backend='envpool' is for env.name='atari'"):
    env_backends.validate_config(cartpole)
  helpers.needs('envpool')
  uneven = _atari('envpool', max_episode_frames=1_001)
  with pytest.raises(ValueError, match='env.max_episode_frames=1001 must be a multiple'):
    env_backends.validate_config(uneven)
  env_backends.validate_config(_atari('envpool'))
