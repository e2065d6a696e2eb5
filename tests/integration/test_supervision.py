"""The supervising launcher (local_mp): crashed nodes come back, stops are ordered and
complete. Each test launches a whole program with `python -m seed_graph.launch.local`, kills nodes
with SIGKILL, and leaves no process behind even when it fails (killed actors:
test_one_running_program.py)."""

import os
import re
import signal
import time
import uuid

import pytest

from tests import helpers

SMALL = helpers.SMALL_VTRACE_FLAGS

ENDLESS = '--config.total_environment_frames=100000000'


def _frames(logdir) -> int:
  metrics = helpers.read_metrics(logdir)
  return metrics[-1]['frames'] if metrics else 0


@pytest.fixture
def launch(tmp_path):
  """Starts launch.local; afterwards kills whatever the launch left alive."""
  marker = uuid.uuid4().hex
  started = []

  def start(*flags, config='cartpole_vtrace'):
    launcher = helpers.start_launch(tmp_path / 'run', marker, *flags, config=config)
    started.append(launcher)
    return launcher, tmp_path / 'run', marker

  yield start
  for launcher in started:
    if launcher.poll() is None:
      launcher.kill()
  for process in helpers.marked_processes(marker):
    process.kill()


def _stop_and_check_nothing_is_left(launcher, logdir, marker, sig, grace=120):
  start = time.time()
  launcher.send_signal(sig)
  launcher.wait(timeout=grace + 30)
  assert launcher.returncode == 0, helpers.launch_output(logdir)[-4000:]
  assert time.time() - start < grace
  time.sleep(1)
  left = helpers.marked_processes(marker)
  assert not left, [p.cmdline() for p in left]


def test_planned_restarts_are_not_crashes_a_killed_learner_resumes_and_sigterm_stops_all(launch):
  # Any growth at all (0.001%) after the first checkpoint: a planned restart at the next.
  launcher, logdir, marker = launch(
      ENDLESS, '--config.logging.checkpoint_interval_seconds=4',
      '--config.logging.memory_restart_percent=0.001',
      '--config.logging.memory_restart_min_mib=0', *SMALL)
  assert helpers.wait_for(
      lambda: 'learner/0 restarts as planned' in helpers.launch_output(logdir), 180), \
      helpers.launch_output(logdir)[-4000:]

  def learner_steps():
    metrics = helpers.read_metrics(logdir)
    return metrics[-1]['learner_steps'] if metrics else 0
  steps_at_planned_restart = learner_steps()
  assert helpers.wait_for(lambda: learner_steps() > steps_at_planned_restart, 120), \
      helpers.launch_output(logdir)[-4000:]
  with open(logdir / 'logs' / 'learner_0.log') as f:
    log = f.read()  # Read once the restarted learner trains: it has said where it resumed.
  assert 'restarting as planned: resident memory' in log and 'Resumed from' in log
  # Saved with inference stopped: the restarted learner goes on counting the games.
  assert re.search(r'frames=\d+, games in flight kept\n\[learner\] restarting as planned', log)
  assert 'restarts_learner' not in helpers.read_metrics(logdir)[-1]  # Not a crash.

  learner = helpers.node_processes(marker)['learner/0']
  learner.send_signal(signal.SIGKILL)
  learner.wait(10)
  before = helpers.read_metrics(logdir)
  steps_before = before[-1]['learner_steps']

  def resumed():
    lines = helpers.read_metrics(logdir)[len(before):]
    return lines and lines[-1]['learner_steps'] > steps_before
  assert helpers.wait_for(resumed, 180), helpers.launch_output(logdir)[-4000:]
  after = helpers.read_metrics(logdir)[len(before):]
  # The new learner started from the checkpoint, not from zero, with no relaunch; the
  # kill is its one crash (the planned restarts before it are not counted).
  assert after[0]['learner_steps'] > 0
  assert after[0]['restarts_learner'] == 1
  assert helpers.node_processes(marker)['learner/0'].pid != learner.pid

  checkpoint_before_stop = helpers.latest_checkpoint(logdir)
  _stop_and_check_nothing_is_left(launcher, logdir, marker, signal.SIGTERM)
  # The learner saved once more as it stopped.
  assert helpers.latest_checkpoint(logdir) != checkpoint_before_stop
  assert 'stopping: SIGTERM' in helpers.launch_output(logdir)


def test_a_killed_replay_comes_back_and_r2d2_training_goes_on(launch):
  launcher, logdir, marker = launch(
      ENDLESS, '--config.logging.checkpoint_interval_seconds=5',
      *helpers.SMALL_R2D2_FLAGS, config='cartpole_r2d2')

  def steps():
    metrics = helpers.read_metrics(logdir)
    return metrics[-1]['learner_steps'] if metrics else 0
  assert helpers.wait_for(lambda: steps() >= 20 and helpers.latest_checkpoint(logdir), 240), \
      helpers.launch_output(logdir)[-4000:]
  replay = helpers.node_processes(marker)['replay/0']
  replay.send_signal(signal.SIGKILL)
  replay.wait(10)
  steps_at_kill = steps()
  # Sampling and inserting resume against the new replay (restored from its checkpoint).
  assert helpers.wait_for(lambda: steps() >= steps_at_kill + 20, 240), \
      helpers.launch_output(logdir)[-4000:]
  assert helpers.node_processes(marker)['replay/0'].pid != replay.pid
  assert helpers.wait_for(
      lambda: helpers.read_metrics(logdir)[-1].get('restarts_replay') == 1, 30)
  checkpoint_before_stop = helpers.latest_checkpoint(logdir)
  _stop_and_check_nothing_is_left(launcher, logdir, marker, signal.SIGINT)
  # Ctrl-C saved once more, and the replay was still up when the learner saved: that
  # checkpoint holds the table as it was at the stop.
  assert helpers.latest_checkpoint(logdir) != checkpoint_before_stop
  final = helpers.read_metrics(logdir)[-1]
  assert final['replay_size_at_checkpoint'] is not None, 'the replay was not saved'
  assert final['replay_size_at_checkpoint'] == final['replay_size'] > 0
  assert os.listdir(logdir / 'replay')
