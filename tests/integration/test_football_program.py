"""The V-trace program on Google Research Football (the engine is built by scripts/test.sh)."""

import pytest

from tests import helpers

pytestmark = pytest.mark.football


def test_vtrace_program_runs_on_football_academy(tmp_path):
  logdir = tmp_path / 'football'
  final = helpers.train_to_the_end(
      logdir, '--config.total_environment_frames=7000', '--config.actors.num=1',
      '--config.actors.env_batch_size=4', '--config.evaluators.env_batch_size=1',
      '--config.learner.batch_size=4', '--config.learner.unroll_length=8',
      '--config.logging.interval_seconds=2', config='football_academy_vtrace',
      timeout=600)
  assert final['frames'] >= 7000
  assert final['learner_steps'] >= 200
  assert final['train_episodes'] > 0
