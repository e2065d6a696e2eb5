"""Resuming a logdir: which config changes `launch.local` refuses and which it lists."""

import json
import os

import pytest

from seed_graph.config.schema import ConfigError
from seed_graph.configs import atari_vtrace
from seed_graph.launch.runs import config_args


def _logdir_with(tmp_path, config, drop=()):
  config.logdir = str(tmp_path)
  recorded = json.loads(config.to_json())
  for key in drop:  # As written before the key existed.
    section, leaf = key.split('.')
    del recorded[section][leaf]
  with open(os.path.join(tmp_path, 'config.json'), 'w') as f:
    json.dump(recorded, f)


def _float32_atari_vtrace():
  """The ResNet config in float32 (its preset says 'auto')."""
  config = atari_vtrace.get_config()
  config.network.compute_dtype = 'float32'
  return config


def test_a_logdir_from_before_an_added_key_resumes_without_a_change(tmp_path):
  _logdir_with(tmp_path, atari_vtrace.get_config(),
               drop=('network.compute_dtype', 'env.frame_stack'))
  config = atari_vtrace.get_config()
  config.logdir = str(tmp_path)
  assert config_args.changes_since_last_launch(config) == ([], [])


def test_an_added_key_resumes_as_its_default_and_lists_a_change_from_it(tmp_path):
  # A logdir from before compute_dtype existed; today's config sets it.
  _logdir_with(tmp_path, atari_vtrace.get_config(), drop=('network.compute_dtype',))
  config = _float32_atari_vtrace()
  config.logdir = str(tmp_path)
  assert config_args.changes_since_last_launch(config) == (
      [], ["network.compute_dtype: 'auto' -> 'float32'"])


def test_compute_dtype_is_a_listed_change_and_the_network_width_a_refused_one(tmp_path):
  _logdir_with(tmp_path, _float32_atari_vtrace())
  config = _float32_atari_vtrace()
  config.logdir = str(tmp_path)
  config.network.compute_dtype = 'bfloat16'
  config.network.lstm_size = 128
  config.env.frame_stack = 4
  shape, other = config_args.changes_since_last_launch(config)
  assert other == ["network.compute_dtype: 'float32' -> 'bfloat16'"]
  assert shape == ['env.frame_stack: 1 -> 4', 'network.lstm_size: 256 -> 128']


def test_a_logdir_that_cannot_hold_a_run_is_one_line(tmp_path):
  a_file = tmp_path / 'a_file'
  a_file.write_text('')
  with pytest.raises(ConfigError, match='is a file, not a directory'):
    config_args.make_logdir(str(a_file))
  with pytest.raises(ConfigError, match=r'cannot be created in .* \(Not a directory\)'):
    config_args.make_logdir(str(a_file / 'run'))
  # Where it failed, not just why: /proc takes no folders.
  with pytest.raises(ConfigError, match=r'^--logdir=/proc/seed_graph/run: cannot be '
                                        r'created in /proc \('):
    config_args.make_logdir('/proc/seed_graph/run')
  config_args.make_logdir(str(tmp_path / 'new' / 'run'))
  assert (tmp_path / 'new' / 'run').is_dir()


def test_config_names_a_preset_from_anywhere_or_a_file_by_its_path(tmp_path, monkeypatch):
  monkeypatch.chdir(tmp_path)  # Outside the checkout, as after an install.
  assert config_args.load('cartpole_vtrace').algorithm == 'vtrace'
  own = tmp_path / 'mine.py'
  own.write_text('from seed_graph.configs import cartpole_r2d2\n'
                 'def get_config():\n  return cartpole_r2d2.get_config()\n')
  assert config_args.load(str(own)).algorithm == 'r2d2'


@pytest.mark.parametrize('spec, message', [
    ('cartpole_vtrase', '--config=cartpole_vtrase: no preset of that name; did you mean '
                        'cartpole_vtrace? presets: ' + ', '.join(config_args.presets())),
    ('configs/cartpole_vtrace.py', '--config=configs/cartpole_vtrace.py: no such file (the '
                                   'preset is --config=cartpole_vtrace)'),
    ('mine.py', '--config=mine.py: no such file'),
    ('', '--config: no config given'),
])
def test_a_config_that_names_nothing_fails_in_one_line(tmp_path, monkeypatch, spec, message):
  monkeypatch.chdir(tmp_path)
  with pytest.raises(ConfigError) as error:
    config_args.load(spec)
  assert str(error.value).startswith(message) and '\n' not in str(error.value)


def test_runs_compare_a_preset_by_name_however_it_was_named():
  for spec in ('atari_cleanrl_vtrace', 'configs/atari_cleanrl_vtrace.py',
               'seed_graph/configs/atari_cleanrl_vtrace.py'):
    assert config_args.setting_name(spec) == 'atari_cleanrl_vtrace'
  assert config_args.setting_name('mine/atari_cleanrl_vtrace.py') == (
      'mine/atari_cleanrl_vtrace.py')
