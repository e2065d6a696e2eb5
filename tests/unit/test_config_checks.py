"""A bad config fails before launch, with the key at fault named."""

import re

import ml_collections
import pytest

from seed_graph.configs import atari_vtrace
from seed_graph.configs import cartpole_r2d2
from seed_graph.configs import cartpole_vtrace
from seed_graph.config import schema as config_schema
from seed_graph.config.schema import ConfigError
from seed_graph.programs import registry
from seed_graph.programs import central_inference
from tests import helpers


_PRESETS = {'vtrace': cartpole_vtrace, 'r2d2': cartpole_r2d2}


def _config(tmp_path):
  config = cartpole_vtrace.get_config()
  config.logdir = str(tmp_path)
  return config


@pytest.mark.parametrize('key,value,needle', [
    ('actors.num', 0, 'actors.num: must be positive'),
    ('actors.env_batch_size', -3, 'actors.env_batch_size: must be positive'),
    ('learner.unroll_length', 0, 'learner.unroll_length: must be positive'),
    ('learner.batch_size', 0, 'learner.batch_size: must be positive'),
    ('learner.queue_capacity', 2, 'learner.queue_capacity: 2 unrolls cannot hold'),
    ('learner.minibatches', 3, 'learner.minibatches: 3 does not divide'),
    ('learner.epochs', 0, 'learner.epochs: must be positive'),
    ('learner.policy_clip', 1.5, 'learner.policy_clip: must be in [0'),
    ('learner.policy_clip_center', 'batch_start',
     "learner.policy_clip_center='batch_start' centres a clip there is not"),
    ('learner.policy_clip_center', 'proximal', 'learner.policy_clip_center: expected one of'),
    ('learner.unroll_length', 100_000_000, 'queued unrolls of'),
    ('learner.discount', 1.5, 'learner.discount: must be in [0, 1]'),
    ('learner.reward_clipping', 'tanh', 'learner.reward_clipping'),
    ('learner.reward_scale', 0.0, 'learner.reward_scale: must be positive'),
    ('inference.batch_size', 2, 'inference.batch_size: 2 is smaller than one actor request'),
    ('inference.timeout_us', 0, 'inference.timeout_us: must be positive'),
    ('actors.env_groups', 0, 'actors.env_groups: must be positive'),
    ('actors.env_groups', 5, 'actors.env_groups: must be in [1, actors.env_batch_size=4]'),
    ('network.torso', 'transformer', 'network.torso'),
    ('network.torso', 'atari', "network.torso: 'atari' needs image observations"),
    ('network.compute_dtype', 'float16', 'network.compute_dtype: expected one of'),
    ('network.initialization', 'xavier', 'network.initialization: expected one of'),
    ('network.compute_dtype', 'bfloat16', "the 'mlp' torso is float32"),
    ('evaluators.epsilon', 2.0, 'evaluators.epsilon'),
    ('total_environment_frames', 0, 'total_environment_frames: must be positive'),
    ('logdir', '', 'logdir: empty'),
    ('env.name', 'mujoco', "env.name: expected one of ('cartpole', 'atari'"),
])
def test_bad_values_are_named(tmp_path, key, value, needle):
  config = helpers.small_cartpole_config(tmp_path, **{key: value})
  with pytest.raises(ConfigError) as error:
    central_inference.make_program(config)
  assert needle in str(error.value)


def test_bfloat16_needs_onednn(tmp_path):
  config = atari_vtrace.get_config()
  config.logdir = str(tmp_path)
  config.network.compute_dtype = 'bfloat16'
  config.onednn = False
  with pytest.raises(ConfigError, match='bfloat16 needs onednn=True'):
    central_inference.make_program(config)


def test_unknown_and_missing_keys(tmp_path):
  config = _config(tmp_path)
  config.learner.unrol_length = 3
  with pytest.raises(ConfigError, match='learner.unrol_length: unknown'):
    central_inference.make_program(config)
  config = _config(tmp_path)
  del config.learner['discount']
  with pytest.raises(ConfigError, match='learner.discount: missing'):
    central_inference.make_program(config)


def test_wrong_type_is_named(tmp_path):
  config = _config(tmp_path)
  # As written in a user's own config file (ConfigDict only guards overrides).
  config.actors = ml_collections.ConfigDict({'num': 2.5, 'env_batch_size': 4, 'env_groups': 1})
  with pytest.raises(ConfigError, match='actors.num: expected an integer'):
    central_inference.make_program(config)


def test_unknown_atari_game_lists_valid_ones(tmp_path):
  config = atari_vtrace.get_config()
  config.logdir = str(tmp_path)
  config.env.game = 'NotAGame'
  with pytest.raises(ConfigError) as error:
    central_inference.make_program(config)
  assert "env.game='NotAGame'" in str(error.value)
  assert 'Breakout' in str(error.value) and 'Pong' in str(error.value)


def test_a_bad_env_backend_fails_before_launch(tmp_path):
  config = atari_vtrace.get_config()
  config.logdir = str(tmp_path)
  config.env.backend = 'envpool'
  config.env.envpool_threads = 0
  with pytest.raises(ConfigError, match='env.envpool_threads: must be positive'):
    central_inference.make_program(config)
  config = _config(tmp_path)
  config.env.backend = 'envpool'
  with pytest.raises(ConfigError, match="env.name='atari' only, not 'cartpole'"):
    central_inference.make_program(config)


def test_default_configs_are_valid(tmp_path):
  from seed_graph.configs import atari_vtrace_fast  # pylint: disable=g-import-not-at-top
  for module in (cartpole_vtrace, atari_vtrace, atari_vtrace_fast):
    config = module.get_config()
    config.logdir = str(tmp_path)
    program = central_inference.make_program(config)
    assert set(program.groups) == {'learner', 'actor', 'evaluator'}
    assert len(program.groups['actor']) == config.actors.num


def test_pipelined_groups_need_only_one_group_per_inference_batch(tmp_path):
  config = helpers.small_cartpole_config(tmp_path)
  config.actors.env_batch_size = 8
  config.evaluators.num = 0
  config.inference.batch_size = 4
  with pytest.raises(ConfigError, match='smaller than one actor request'):
    registry.validate_config(config)
  config.actors.env_groups = 2  # Requests of 4 rows now fit.
  registry.validate_config(config)


@pytest.mark.parametrize('algorithm', ['vtrace', 'r2d2'])
@pytest.mark.parametrize('bad', [float('nan'), float('inf'), float('-inf')])
def test_every_numeric_key_must_be_finite(tmp_path, algorithm, bad):
  module = _PRESETS[algorithm]
  keys = [dotted for dotted, key in config_schema.flat(registry.schema(
      module.get_config())).items() if key.type is float]
  assert 'learner.learning_rate' in keys and 'logging.checkpoint_interval_seconds' in keys
  for key in keys:
    config = module.get_config()
    config.logdir = str(tmp_path)
    section, leaf = key.split('.')
    config[section][leaf] = bad
    with pytest.raises(ConfigError, match=f'^{key}: must be a finite number'):
      registry.validate_config(config)


@pytest.mark.parametrize('key,value,needle', [
    ('seed', -5000, 'seed: must be >= 0'),
    ('seed', 2**31 - 1, 'seed: must leave room'),
    ('learner.gradient_clip_norm', -1.0, 'learner.gradient_clip_norm: must be >= 0'),
    ('network.lstm_size', -1, 'network.lstm_size: must be >= 0, got -1'),
])
@pytest.mark.parametrize('algorithm', ['vtrace', 'r2d2'])
def test_ranges_that_used_to_launch(tmp_path, algorithm, key, value, needle):
  module = _PRESETS[algorithm]
  config = module.get_config()
  config.logdir = str(tmp_path)
  *parents, leaf = key.split('.')
  section = config
  for part in parents:
    section = section[part]
  section[leaf] = value
  with pytest.raises(ConfigError, match=needle):
    registry.validate_config(config)


@pytest.mark.parametrize('algorithm', ['vtrace', 'r2d2'])
def test_feed_forward_agents_are_valid(tmp_path, algorithm):
  module = _PRESETS[algorithm]
  config = module.get_config()
  config.logdir, config.network.lstm_size = str(tmp_path), 0
  registry.validate_config(config)


@pytest.mark.parametrize('overrides,needle', [
    ({'learner.inference_devices': 1}, 'both 0 (one device for both) or both positive'),
    ({'learner.training_devices': 2}, 'both 0 (one device for both) or both positive'),
    ({'learner.inference_devices': -1, 'learner.training_devices': 1},
     'learner.inference_devices: must be >= 0'),
    # learner.batch_size: 32 (V-trace), 16 (R2D2).
    ({'learner.inference_devices': 1, 'learner.training_devices': 3},
     'does not split evenly over learner.training_devices=3'),
    ({'learner.inference_devices': 1, 'learner.training_devices': 1,
      'learner.training_strategy': 'multiworker'}, 'learner.training_strategy: expected'),
    ({'learner.inference_devices': 32, 'learner.training_devices': 64}, 'more than 64'),
    ({'learner.inference_devices': 1, 'learner.training_devices': 1,
      'learner.training_strategy': 'tpu', 'inference.jit_compile': False},
     'inference.jit_compile: TPU cores run XLA programs only'),
])
@pytest.mark.parametrize('algorithm', ['vtrace', 'r2d2'])
def test_device_split_is_checked_before_launch(tmp_path, algorithm, overrides, needle):
  module = _PRESETS[algorithm]
  config = module.get_config()
  config.logdir = str(tmp_path)
  for dotted, value in overrides.items():
    section, leaf = dotted.split('.')
    config[section][leaf] = value
  with pytest.raises(ConfigError, match=re.escape(needle)):
    registry.validate_config(config)


def test_image_configs_run_inference_as_a_tf_graph():
  """XLA's CPU convolutions cost more than oneDNN's (32-row calls: 1.7-2.4x the CPU for
  the Nature CNN, 4.3x for the ResNet; `benchmarks/inference_call.py`), so every shipped
  config with a convolution torso keeps `inference.jit_compile` off; the Atari configs
  had inherited CartPole's XLA."""
  import importlib  # pylint: disable=g-import-not-at-top
  import pkgutil  # pylint: disable=g-import-not-at-top
  from seed_graph import configs  # pylint: disable=g-import-not-at-top
  image_configs = []
  for module_info in pkgutil.iter_modules(configs.__path__):
    module = importlib.import_module(f'seed_graph.configs.{module_info.name}')
    if hasattr(module, 'get_config'):
      config = module.get_config()
      if config.network.torso in ('resnet', 'atari'):
        image_configs.append(module_info.name)
        assert not config.inference.jit_compile, module_info.name
  assert {'atari_vtrace', 'atari_vtrace_fast', 'atari_r2d2', 'football_vtrace'} <= set(
      image_configs)


def test_every_key_of_every_shipped_config_is_declared_with_a_type_and_a_doc():
  """One definition per key: a shipped config holds only declared keys, each with a
  documentation and a type its value has."""
  import importlib  # pylint: disable=g-import-not-at-top
  import pkgutil  # pylint: disable=g-import-not-at-top
  from seed_graph import configs  # pylint: disable=g-import-not-at-top
  checked = 0
  for module_info in pkgutil.iter_modules(configs.__path__):
    module = importlib.import_module(f'seed_graph.configs.{module_info.name}')
    config = module.get_config()
    schema = registry.schema(config)
    config_schema.check(config, schema)  # No undeclared key, every value of its type.
    for dotted, key in config_schema.flat(schema).items():
      assert key.doc.strip().endswith('.') and len(key.doc) > 10, (dotted, key.doc)
      assert key.type in (bool, int, float, str, tuple, dict), (dotted, key.type)
    checked += 1
  assert checked >= 8


def test_an_override_is_parsed_as_its_keys_type():
  config = cartpole_vtrace.get_config()
  schema = registry.schema(config)
  for override, key, value in [('learner.batch_size=8', 'batch_size', 8),
                               ('learner.learning_rate=1', 'learning_rate', 1.0),
                               ('learner.learning_rate_decay=false', 'learning_rate_decay',
                                False),
                               ('learner.reward_clipping=abs_one', 'reward_clipping',
                                'abs_one')]:
    config_schema.apply_override(config, schema, override)
    assert config.learner[key] == value and type(config.learner[key]) is type(value)
  config_schema.apply_override(config, schema, 'network.mlp_sizes=32,32')
  assert tuple(config.network.mlp_sizes) == (32, 32)
  with pytest.raises(ConfigError, match='learner.learning_rate_decay: expected true or'):
    config_schema.apply_override(config, schema, 'learner.learning_rate_decay=maybe')
