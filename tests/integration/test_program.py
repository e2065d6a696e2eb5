"""Whole programs launched the way users launch them (`python -m seed_graph.launch.local`)."""

import json
import os

import cv2
import numpy as np

from seed_graph.programs import central_inference
from tests import helpers

SMALL = helpers.SMALL_VTRACE_FLAGS


def test_program_graph_shape(tmp_path):
  config = helpers.small_cartpole_config(tmp_path)
  config.actors.num = 3
  config.evaluators.num = 2
  program = central_inference.make_program(config)
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
  assert _recorded_frames(logdir / 'config.json') == 8000  # The config it ran with.

  result = helpers.run_launch(logdir, '--launch_type=local_mt',
                              '--config.total_environment_frames=12000', *SMALL)
  assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
  second = helpers.read_metrics(logdir)[len(first):]
  # Frames and learner steps continue from the checkpoint instead of restarting.
  assert second[0]['frames'] >= first[-1]['frames']
  assert second[0]['learner_steps'] >= first[-1]['learner_steps']
  assert second[-1]['frames'] >= 12000
  assert _recorded_frames(logdir / 'config.json') == 12000
  assert _recorded_frames(logdir / 'config.previous.json') == 8000

  # The same command again: the run is complete, nothing starts.
  lines = len(helpers.read_metrics(logdir))
  result = helpers.run_launch(logdir, '--launch_type=local_mt',
                              '--config.total_environment_frames=12000', *SMALL)
  assert result.returncode == 0, result.stderr[-3000:]
  assert 'is complete: frames=' in result.stdout
  assert 'launching' not in result.stdout
  assert len(helpers.read_metrics(logdir)) == lines

  # A changed key that shapes the checkpoint fails before launch; others are listed.
  result = helpers.run_launch(logdir, '--print_config', '--config.learner.learning_rate=0.01',
                              '--config.total_environment_frames=12000', *SMALL)
  assert result.returncode == 0, result.stderr[-2000:]
  assert 'resuming with a changed config: learner.learning_rate: ' in result.stdout
  result = helpers.run_launch(logdir, '--launch_type=local_mt', '--config.network.lstm_size=32',
                              '--config.total_environment_frames=16000', *SMALL)
  assert result.returncode == 2
  assert result.stderr.startswith("error: network.lstm_size: 64 -> 32: this logdir's")
  assert len(helpers.read_metrics(logdir)) == lines


def _recorded_frames(path):
  with open(path) as f:
    return json.load(f)['total_environment_frames']


def test_atari_program_trains_on_envpool_actors(tmp_path):
  # The fast config with env.backend=envpool: EnvPool steps the actors' and evaluator's
  # Pong, and the learner trains on their frames as on the python backend's.
  logdir = tmp_path / 'pong_envpool'
  final = helpers.train_to_the_end(
      logdir, '--config.env.backend=envpool', '--config.total_environment_frames=8000',
      '--config.actors.env_batch_size=4', '--config.evaluators.env_batch_size=1',
      '--config.inference.batch_size=9', '--config.learner.batch_size=2',
      '--config.learner.unroll_length=10', '--config.logging.interval_seconds=2',
      config='atari_vtrace_fast', timeout=600)
  assert final['frames'] >= 8000
  assert final['learner_steps'] >= 40
  assert final['total_loss'] is not None
  # EnvPool keeps no screen: launch.eval films the run's agent on the python backend.
  result, summary = helpers.run_eval(logdir, '--episodes=1', '--max_episode_steps=10',
                                     f'--video={tmp_path / "films"}')
  assert summary, result.stdout[-2000:] + result.stderr[-2000:]
  assert summary['results'][0]['steps'] == 10
  assert os.path.getsize(summary['results'][0]['video']) > 0


def test_atari_program_trains_the_resnet_agent(tmp_path):
  # Pong through ale-py with SEED's ResNet torso: a short run, checked end to end.
  logdir = tmp_path / 'pong'
  final = helpers.train_to_the_end(
      logdir, '--config.total_environment_frames=6000', '--config.actors.env_batch_size=2',
      '--config.evaluators.env_batch_size=1', '--config.inference.batch_size=4',
      '--config.learner.batch_size=2', '--config.learner.unroll_length=10',
      '--config.network.lstm_size=32', '--config.logging.interval_seconds=2',
      config='atari_vtrace', timeout=600)
  assert final['frames'] >= 6000  # 4 frames per agent step (frame skip).
  assert final['learner_steps'] >= 30
  assert final['total_loss'] is not None

  # launch.eval films the trained agent from the raw screen, not the 84x84 input.
  result, summary = helpers.run_eval(logdir, '--episodes=2', '--max_episode_steps=40',
                                     f'--video={tmp_path / "films"}')
  assert summary, result.stdout[-2000:] + result.stderr[-2000:]
  assert [r['steps'] for r in summary['results']] == [40, 40]
  assert all(r['truncated'] and r['frames'] == 160 for r in summary['results'])
  for episode in summary['results']:
    film = cv2.VideoCapture(episode['video'])
    frames = []
    while True:
      ok, frame = film.read()
      if not ok:
        break
      frames.append(frame)
    assert len(frames) == 41  # The first observation, then one per step.
    assert frames[0].shape == (210, 160, 3)
    assert not np.array_equal(frames[0], frames[-1])  # The game moved.
