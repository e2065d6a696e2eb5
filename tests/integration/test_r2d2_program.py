"""The R2D2 program: graph shape, config checks, whole runs with replay, resume."""

import os

import numpy as np
import pytest
import reverb

from seed_graph.configs import atari_r2d2
from seed_graph.configs import cartpole_r2d2
from seed_graph.config.schema import ConfigError
from seed_graph.programs import registry
from seed_graph import envs
from seed_graph.algos.r2d2 import replay as r2d2_replay
from seed_graph.nodes import replay as replay_node
from seed_graph.programs import central_inference
from tests import helpers

CONFIG = 'cartpole_r2d2'
SMALL = helpers.SMALL_R2D2_FLAGS


def _config(tmp_path, **overrides):
  config = cartpole_r2d2.get_config()
  config.logdir = str(tmp_path)
  for dotted, value in overrides.items():
    section, leaf = dotted.split('.')
    config[section][leaf] = value
  return config


def test_program_graph_shape(tmp_path):
  config = _config(tmp_path)
  config.actors.num = 3
  config.evaluators.num = 2
  program = central_inference.make_program(config)
  assert [len(program.groups[g]) for g in ('replay', 'learner', 'actor', 'evaluator')] == [
      1, 1, 3, 2]


def test_shipped_configs_are_valid(tmp_path):
  for module in (cartpole_r2d2, atari_r2d2):
    config = module.get_config()
    config.logdir = str(tmp_path)
    registry.validate_config(config)
  atari = atari_r2d2.get_config()
  assert (atari.learner.burn_in, atari.learner.unroll_length, atari.learner.n_step) == (
      40, 80, 5)
  assert atari.learner.discount == 0.997 and atari.learner.target_update_period == 2500
  assert atari.env.frame_stack == 4 and atari.evaluators.epsilon == 0.001


@pytest.mark.parametrize('key,value,needle', [
    ('replay.capacity', 8, 'replay.capacity: 8 sequences cannot hold one training batch'),
    ('learner.burn_in', 30, 'learner.burn_in: 30 burn-in steps are longer than'),
    ('learner.burn_in', -1, 'learner.burn_in: must be >= 0'),
    ('replay.min_size_to_sample', 10_000, 'replay.min_size_to_sample'),
    ('replay.error_buffer', 4.0, 'replay.error_buffer'),
    ('replay.chunk_length', 100, 'replay.chunk_length'),
    ('replay.priority_exponent', 1.5, 'replay.priority_exponent: must be in [0, 1]'),
    ('learner.n_step', 50, 'learner.n_step'),
    ('network.torso', 'atari', "network.torso: 'atari' needs image observations"),
    ('network.torso', 'resnet', "network.torso: 'resnet' needs image observations"),
    ('env.frame_stack', 4, 'env.frame_stack: R2D2 stacks frames on the learner'),
    ('exploration.base', 0.0, 'exploration.base'),
])
def test_bad_replay_settings_are_named(tmp_path, key, value, needle):
  config = _config(tmp_path, **{key: value})
  with pytest.raises(ConfigError) as error:
    central_inference.make_program(config)
  assert needle in str(error.value)


def test_bad_replay_setting_fails_before_launch(tmp_path):
  result = helpers.run_launch(tmp_path / 'run', '--config.replay.capacity=4',
                              config=CONFIG, timeout=120)
  assert result.returncode != 0
  assert 'replay.capacity: 4 sequences cannot hold one training batch' in result.stderr
  assert 'launching' not in result.stdout
  assert not os.path.exists(tmp_path / 'run')


def test_replay_program_trains_fills_replay_then_resumes_both(tmp_path):
  logdir = tmp_path / 'run'
  # Replay node + learner-inference + 2 actors + 1 evaluator, one process each.
  result = helpers.run_launch(logdir, '--config.total_environment_frames=12000', *SMALL,
                              config=CONFIG, timeout=420)
  assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
  first = helpers.read_metrics(logdir)
  last = first[-1]
  assert last['frames'] >= 12000
  assert last['learner_steps'] >= 200, last
  # The table filled up to its capacity (FIFO eviction beyond it).
  assert last['replay_size'] == 150
  assert last['sequences_written'] > 150
  # Priorities came back from training: sampled sequences' priorities change, and
  # sequences are sampled more than once.
  assert last['priority_updates'] >= 8 * last['learner_steps']
  changed = [m['priorities_changed_fraction'] for m in first if 'priorities_changed_fraction' in m]
  assert changed and np.mean(changed) > 0.5
  assert max(m['mean_times_sampled'] for m in first if 'mean_times_sampled' in m) > 1.0
  for key in ('loss', 'mean_q', 'gradient_norm', 'mean_priority', 'episode_return',
              'eval_episode_return', 'fps'):
    assert key in last, key
  assert os.listdir(logdir / 'replay')
  assert any(name.startswith('ckpt-') for name in os.listdir(logdir / 'checkpoints'))
  size_at_checkpoint = last['replay_size_at_checkpoint']
  assert size_at_checkpoint == 150

  # The replay checkpoint itself holds those sequences, with the learner's priorities.
  checkpointer = reverb.checkpointers.DefaultCheckpointer(
      replay_node.replay_checkpoint_dir(str(logdir)))
  config = _config(logdir)
  for flag in SMALL:
    dotted, value = flag[len('--config.'):].split('=')
    section, leaf = dotted.split('.')
    config[section][leaf] = type(config[section][leaf])(float(value) if '.' in value
                                                        else int(value))
  server = reverb.Server(r2d2_replay.make_replay_tables(config, envs.read_spec(config.env)),
                         port=None, checkpointer=checkpointer)
  try:
    info = reverb.Client(f'localhost:{server.port}').server_info()[r2d2_replay.TABLE]
    assert info.current_size == size_at_checkpoint
  finally:
    server.stop()

  # Restart with the same logdir, threads this time: both model and replay come back.
  result = helpers.run_launch(logdir, '--launch_type=local_mt',
                              '--config.total_environment_frames=16000', *SMALL,
                              config=CONFIG, timeout=300)
  assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
  second = helpers.read_metrics(logdir)[len(first):]
  assert second[0]['replay_size_at_start'] == size_at_checkpoint
  assert second[0]['learner_steps'] >= last['learner_steps']
  assert second[0]['frames'] >= last['frames']
  assert second[-1]['frames'] >= 16000
