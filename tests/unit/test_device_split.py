"""The learner split over devices (4 logical CPU devices: 1 inference + 3 training, and
2 + 2): every inference device computes what the training unroll computes, every copy
of every variable is the same after each step, and R2D2's priorities and target network
are unchanged by the split; and the same with `learner.training_strategy='gpu'`, logical
CPU devices standing in for GPUs (there is none here). Each case runs
`tests/unit/device_split_run.py` in a fresh process, since the split must come before
TensorFlow starts."""

import json
import subprocess
import sys

import pytest

from tests import helpers

SPLITS = [(1, 3), (2, 2)]
GPU_CASE = ('vtrace', 2, 2, 'gpu')
_STEPS = {'vtrace': 3, 'r2d2': 4}


@pytest.fixture(scope='module')
def reports(tmp_path_factory):
  """Every case's report (or its output if it failed), keyed (algorithm, inference,
  training, strategy). The cases run two at a time: most of each is one process starting
  TensorFlow and tracing, on one core."""
  cases = [(a, i, t, 'mirrored') for a in _STEPS for i, t in SPLITS] + [GPU_CASE]
  results = {}
  for pair in (cases[start:start + 2] for start in range(0, len(cases), 2)):
    running = []
    for case in pair:
      logdir = tmp_path_factory.mktemp('split')
      output = open(logdir / 'output.txt', 'w+')  # Not a pipe: nothing waits on a reader.
      running.append((case, output, subprocess.Popen(
          [sys.executable, '-m', 'tests.unit.device_split_run', case[0], str(case[1]),
           str(case[2]), str(logdir), str(_STEPS[case[0]]), case[3]],
          cwd=helpers.REPO, stdout=output, stderr=subprocess.STDOUT, text=True)))
    for case, output, process in running:
      process.wait(timeout=600)
      output.seek(0)
      text = output.read()
      output.close()
      lines = [l for l in text.splitlines() if l.startswith('{')]
      results[case] = json.loads(lines[-1]) if process.returncode == 0 and lines else (
          text[-6000:])
  return results


def _report(reports, algorithm, inference, training, strategy='mirrored'):
  report = reports[(algorithm, inference, training, strategy)]
  assert isinstance(report, dict), report  # Otherwise the run's output.
  return report


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
def test_vtrace_split_serves_and_trains_one_model(reports, inference, training):
  report = _report(reports, 'vtrace', inference, training)
  assert len(report['steps']) == 3
  _check_every_step(report, inference, training)


def test_the_gpu_strategy_takes_the_first_gpus_and_trains_like_the_cpu_split(reports):
  algorithm, inference, training, strategy = GPU_CASE
  report = _report(reports, algorithm, inference, training, strategy)
  _check_every_step(report, inference, training)
  # Four of the five stand-ins, in TensorFlow's order: training first, then inference.
  used = report['training_devices'] + report['inference_devices']
  assert [name.rsplit(':', 1)[1] for name in used] == ['0', '1', '2', '3'], used


@pytest.mark.parametrize('inference,training', SPLITS)
def test_r2d2_split_keeps_priorities_and_target_updates(reports, inference, training):
  report = _report(reports, 'r2d2', inference, training)
  _check_every_step(report, inference, training)
  # target_update_period is 2 in the run: the target is the online network after steps
  # 2 and 4, and behind it after 1 and 3.
  assert [s['target_equals_online'] for s in report['steps']] == [False, True, False, True]
  batch_size = 2 * training
  assert report['stats']['priority_updates'] == 4 * batch_size
