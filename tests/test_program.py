"""Whole programs launched the way users launch them (`python -m launch.local`)."""

import os
import signal
import subprocess
import time
import uuid

import psutil
import pytest

from seed_graph.programs import vtrace
from tests import helpers

SMALL = ['--config.actors.env_batch_size=4', '--config.evaluators.env_batch_size=2',
         '--config.learner.batch_size=4', '--config.learner.unroll_length=10',
         '--config.logging.interval_seconds=1']


def _processes_with_marker(marker):
  found = []
  for process in psutil.process_iter(['pid']):
    try:
      if process.environ().get('SEED_GRAPH_TEST_MARKER') == marker:
        found.append(process)
    except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
      pass
  return found


def test_program_graph_shape(tmp_path):
  config = helpers.small_cartpole_config(tmp_path)
  config.actors.num = 3
  config.evaluators.num = 2
  program = vtrace.make_program(config)
  assert [len(program.groups[g]) for g in ('learner', 'actor', 'evaluator')] == [1, 3, 2]


def test_local_mt_trains_then_resumes_from_checkpoint(tmp_path):
  logdir = tmp_path / 'run'
  result = helpers.run_launch(logdir, '--launch_type=local_mt',
                              '--config.total_environment_frames=8000', *SMALL)
  assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
  first = helpers.read_metrics(logdir)
  assert first[-1]['frames'] >= 8000
  assert first[-1]['learner_steps'] >= 100  # A few hundred unroll steps each.
  for key in ('fps', 'episode_return', 'eval_episode_return', 'total_loss', 'policy_loss',
              'baseline_loss', 'entropy', 'wall_time'):
    assert key in first[-1], key
  assert os.listdir(logdir / 'tensorboard')
  assert any(name.startswith('ckpt-') for name in os.listdir(logdir / 'checkpoints'))

  result = helpers.run_launch(logdir, '--launch_type=local_mt',
                              '--config.total_environment_frames=12000', *SMALL)
  assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
  second = helpers.read_metrics(logdir)[len(first):]
  # Frames and learner steps continue from the checkpoint instead of restarting.
  assert second[0]['frames'] >= first[-1]['frames']
  assert second[0]['learner_steps'] >= first[-1]['learner_steps']
  assert second[-1]['frames'] >= 12000


def _launch_until_training(logdir, marker, frames, *flags, **popen_kwargs):
  """Starts launch.local (local_mp) tagged with `marker`; returns it once the learner has
  logged more than `frames` frames."""
  launcher = subprocess.Popen(helpers.launch_command(logdir, *flags), cwd=helpers.REPO,
                              env=dict(os.environ, SEED_GRAPH_TEST_MARKER=marker),
                              **popen_kwargs)
  deadline = time.time() + 180
  while time.time() < deadline:
    metrics = helpers.read_metrics(logdir)
    if metrics and metrics[-1]['frames'] > frames:
      return launcher
    time.sleep(0.5)
  launcher.kill()
  pytest.fail('the program did not start training')


def test_local_mp_survives_a_killed_actor_and_leaves_no_processes(tmp_path):
  logdir = tmp_path / 'run'
  marker = uuid.uuid4().hex
  launcher = _launch_until_training(
      # Pipelined actors (two groups each), as launched from the command line.
      logdir, marker, 4000, '--config.total_environment_frames=30000',
      '--config.actors.env_groups=2', *SMALL,
      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
  try:
    # Kill one actor's Python process outright (SIGKILL: no clean-up).
    actors = [p for p in _processes_with_marker(marker)
              if 'actor/1' in ' '.join(p.cmdline())]
    actor_pythons = [c for p in actors for c in p.children(recursive=True)
                     if 'process_entry' in ' '.join(c.cmdline())]
    assert actor_pythons, 'no actor process found'
    # launch.local's stop grace reaches every node process, not only the launcher.
    node_pythons = [p for p in _processes_with_marker(marker)
                    if 'process_entry' in ' '.join(p.cmdline())]
    assert len(node_pythons) >= 4  # learner, 2 actors, evaluator
    for process in node_pythons:
      assert '--lp_termination_notice_secs=120' in process.cmdline()
    for process in actor_pythons:
      process.send_signal(signal.SIGKILL)
    frames_at_kill = helpers.read_metrics(logdir)[-1]['frames']
    output, _ = launcher.communicate(timeout=300)
  finally:
    if launcher.poll() is None:
      launcher.kill()
  assert launcher.returncode == 0, output[-4000:]
  final = helpers.read_metrics(logdir)[-1]
  assert final['frames'] >= 30000 > frames_at_kill
  time.sleep(2)
  leftovers = _processes_with_marker(marker)
  assert not leftovers, [p.cmdline() for p in leftovers]


def test_local_mp_nodes_stop_and_save_when_the_launcher_is_killed(tmp_path):
  logdir = tmp_path / 'run'
  marker = uuid.uuid4().hex
  launcher = _launch_until_training(
      logdir, marker, 2000, '--config.total_environment_frames=100000000', *SMALL,
      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
  try:
    assert not (logdir / 'checkpoints' / 'checkpoint').exists()  # None yet: every 120 s.
    others = [p for p in _processes_with_marker(marker) if p.pid != launcher.pid]
    assert len([p for p in others if 'process_entry' in ' '.join(p.cmdline())]) >= 4
  finally:
    launcher.send_signal(signal.SIGKILL)  # No clean-up by the launcher at all.
    launcher.wait()
  _, alive = psutil.wait_procs(others, timeout=120)
  assert not alive, [p.cmdline() for p in alive]
  assert not _processes_with_marker(marker)
  # The learner stopped the normal way: it saved where it was.
  assert (logdir / 'checkpoints' / 'checkpoint').exists()


def test_atari_program_trains_the_resnet_agent(tmp_path):
  # Pong through ale-py with SEED's ResNet torso: a short run, checked end to end.
  logdir = tmp_path / 'pong'
  result = helpers.run_launch(
      logdir, '--config.total_environment_frames=6000', '--config.actors.env_batch_size=2',
      '--config.evaluators.env_batch_size=1', '--config.inference.batch_size=4',
      '--config.learner.batch_size=2', '--config.learner.unroll_length=10',
      '--config.network.lstm_size=32', '--config.logging.interval_seconds=2',
      config='configs/atari_vtrace.py', timeout=600)
  assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
  final = helpers.read_metrics(logdir)[-1]
  assert final['frames'] >= 6000  # 4 frames per agent step (frame skip).
  assert final['learner_steps'] >= 30
  assert final['total_loss'] is not None
