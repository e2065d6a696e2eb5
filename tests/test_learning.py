"""Learning tests: real training runs of the shipped configs (minutes each)."""

import pytest

from tests import helpers


@pytest.mark.slow
def test_cartpole_vtrace_default_config_learns(tmp_path):
  # The embedded default exactly as `scripts/train.sh` runs it (local multiprocessing).
  logdir = tmp_path / 'cartpole'
  result = helpers.run_launch(logdir, timeout=600)
  assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
  metrics = helpers.read_metrics(logdir)
  best = max((m['episode_return'] or 0.0, m['frames']) for m in metrics)
  assert metrics[-1]['frames'] >= 500_000
  # Mean return of the last 100 training episodes, at some point within 500k frames.
  returns_within_budget = [m['episode_return'] or 0.0 for m in metrics
                           if m['frames'] <= 500_000 + 1_000]
  assert max(returns_within_budget) >= 450, f'best (return, frames): {best}'
