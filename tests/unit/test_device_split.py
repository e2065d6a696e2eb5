"""The learner split over devices (4 logical CPU devices: 1 inference + 3 training, and
2 + 2): every inference device computes what the training unroll computes, every copy
of every variable is the same after each step, and R2D2's priorities and target network
are unchanged by the split. Each case runs `tests/unit/device_split_run.py` in a fresh
process, since the split must come before TensorFlow starts."""

import json
import subprocess
import sys

import pytest

from tests import helpers

SPLITS = [(1, 3), (2, 2)]


def _run(algorithm, inference, training, logdir, steps):
  result = subprocess.run(
      [sys.executable, '-m', 'tests.unit.device_split_run', algorithm, str(inference),
       str(training), str(logdir), str(steps)],
      cwd=helpers.REPO, capture_output=True, text=True, timeout=600)
  lines = [l for l in result.stdout.splitlines() if l.startswith('{')]
  assert result.returncode == 0 and lines, result.stdout[-2000:] + result.stderr[-4000:]
  return json.loads(lines[-1])


def _check_every_step(report, inference, training):
  assert len(report['inference_devices']) == inference
  assert len(report['training_devices']) == training
  assert not set(report['inference_devices']) & set(report['training_devices'])
  assert report['rows_in_batch_order']
  for step in report['steps']:
    assert step['update_applied'], step
    assert step['largest_change'] > 0, step  # The step did train.
    # One copy per device, all equal: inference devices hold the new values too.
    assert step['copies_per_variable'] == [inference + training], step
    assert step['copies_equal'], step
    assert len(step['outputs_max_difference']) == inference
    assert max(step['outputs_max_difference']) < 1e-5, step


@pytest.mark.parametrize('inference,training', SPLITS)
def test_vtrace_split_serves_and_trains_one_model(tmp_path, inference, training):
  report = _run('vtrace', inference, training, tmp_path, steps=3)
  assert len(report['steps']) == 3
  _check_every_step(report, inference, training)


@pytest.mark.parametrize('inference,training', SPLITS)
def test_r2d2_split_keeps_priorities_and_target_updates(tmp_path, inference, training):
  report = _run('r2d2', inference, training, tmp_path, steps=4)
  _check_every_step(report, inference, training)
  # target_update_period is 2 in the run: the target is the online network after steps
  # 2 and 4, and behind it after 1 and 3.
  assert [s['target_equals_online'] for s in report['steps']] == [False, True, False, True]
  batch_size = 2 * training
  assert report['stats']['priority_updates'] == 4 * batch_size
