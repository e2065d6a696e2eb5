"""Checks of an experiment config, run before any process starts.

Every error is a `ConfigError` whose message starts with the dotted key at fault.
"""

import math

import numpy as np

from seed_graph import env_batches
from seed_graph import envs
from seed_graph import env_ids
from seed_graph import learner_devices
from seed_graph.algos import layers
from seed_graph.algos import networks


class ConfigError(ValueError):
  pass


# Keys every program's config has, and their types (env keys are checked by the env
# module). Each algorithm adds its own network, learner and other sections.
COMMON_SCHEMA = {
    'algorithm': str,
    'seed': int,
    'logdir': str,
    'total_environment_frames': int,
    'onednn': bool,
    'env': dict,
    'actors': {'num': int, 'env_batch_size': int, 'env_groups': int},
    'evaluators': {'num': int, 'env_batch_size': int, 'epsilon': float},
    'inference': {'batch_size': int, 'timeout_us': int, 'jit_compile': bool,
                  'keepalive_seconds': float},
    'logging': {'interval_seconds': float, 'checkpoint_interval_seconds': float,
                'return_window': int, 'eval_return_window': int},
}

# The learner's device split (`seed_graph.learner_devices`), in both learner sections.
DEVICE_SCHEMA = {'inference_devices': int, 'training_devices': int,
                 'training_strategy': str}

# Keys of a V-trace config beyond the common ones.
VTRACE_SCHEMA = dict(COMMON_SCHEMA, **{
    'network': {
        'torso': str, 'mlp_sizes': tuple, 'lstm_size': int, 'torso_hidden_size': int,
        'compute_dtype': str, 'center_frames': bool,
    },
    'learner': {
        'batch_size': int, 'unroll_length': int, 'queue_capacity': int,
        'queue_max_bytes': int, 'learning_rate': float, 'learning_rate_decay': bool,
        'adam_beta1': float, 'adam_beta2': float, 'adam_epsilon': float,
        'discount': float, 'baseline_cost': float, 'entropy_cost': float,
        'lambda_': float, 'reward_clipping': str, 'reward_scale': float,
        'gradient_clip_norm': float,
        'clip_rho_threshold': float, 'clip_pg_rho_threshold': float,
        **DEVICE_SCHEMA,
    },
})

REWARD_CLIPPING_MODES = ('none', 'abs_one', 'soft_asymmetric')


def _check_keys(config, schema, prefix=''):
  present = set(config.keys())
  for key in sorted(present - set(schema)):
    raise ConfigError(f'{prefix}{key}: unknown config key (known here: '
                      f'{", ".join(sorted(schema))})')
  for key in sorted(set(schema) - present):
    raise ConfigError(f'{prefix}{key}: missing from the config')
  for key, expected in schema.items():
    value = config[key]
    if isinstance(expected, dict):
      _check_keys(value, expected, prefix=f'{prefix}{key}.')
    elif expected is dict:
      if not hasattr(value, 'keys'):
        raise ConfigError(f'{prefix}{key}: expected a config section')
    elif expected is float:
      if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f'{prefix}{key}: expected a number, got {value!r}')
      if not math.isfinite(value):
        raise ConfigError(f'{prefix}{key}: must be a finite number, got {value!r}')
    elif expected is tuple:
      if not isinstance(value, (tuple, list)):
        raise ConfigError(f'{prefix}{key}: expected a tuple, got {value!r}')
    elif expected is int:
      if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f'{prefix}{key}: expected an integer, got {value!r}')
    elif not isinstance(value, expected):
      raise ConfigError(f'{prefix}{key}: expected {expected.__name__}, got {value!r}')


def _positive(config, *keys, or_zero=False):
  for key in keys:
    value = config
    for part in key.split('.'):
      value = value[part]
    if value < 0 or (value == 0 and not or_zero):
      raise ConfigError(f'{key}: must be {">= 0" if or_zero else "positive"}, got {value}')


def _check_program(config, schema, algorithm):
  """The keys of `schema`, and the common sections' values."""
  _check_keys(config, schema)
  if config.algorithm != algorithm:
    raise ConfigError(f'algorithm: this program runs {algorithm!r}, got {config.algorithm!r}')
  if not config.logdir:
    raise ConfigError('logdir: empty; pass --logdir=DIR')
  if not 0 <= config.seed < 2**31 - 1000 * (config.actors.num + config.evaluators.num + 1):
    raise ConfigError(f'seed: must be >= 0 and leave room for every node\'s seed (seed + '
                      f'1000 per node) below 2**31, got {config.seed}')
  _positive(config, 'total_environment_frames', 'actors.num', 'actors.env_batch_size',
            'inference.batch_size', 'inference.timeout_us', 'inference.keepalive_seconds',
            'logging.interval_seconds', 'logging.checkpoint_interval_seconds',
            'logging.return_window', 'logging.eval_return_window')
  _positive(config, 'network.lstm_size', or_zero=True)  # 0: a feed-forward agent.
  if not 0.0 <= config.evaluators.epsilon <= 1.0:
    raise ConfigError(f'evaluators.epsilon: must be in [0, 1], got {config.evaluators.epsilon}')
  if config.network.compute_dtype not in layers.COMPUTE_DTYPES:
    raise ConfigError(f'network.compute_dtype: expected one of {layers.COMPUTE_DTYPES}, got '
                      f'{config.network.compute_dtype!r}')
  if config.network.compute_dtype != 'float32' and config.network.torso == 'mlp':
    raise ConfigError("network.compute_dtype: only the convolution torsos compute in "
                      f"{config.network.compute_dtype}; the 'mlp' torso is float32")
  if config.network.compute_dtype == 'bfloat16' and not config.onednn:
    raise ConfigError('network.compute_dtype: bfloat16 needs onednn=True (without oneDNN, '
                      "TensorFlow 2.8's CPU convolutions return float32)")
  _check_devices(config)


def _check_devices(config):
  try:
    learner_devices.validate_config(config)
  except ValueError as e:
    raise ConfigError(str(e)) from None

def _check_actors_and_evaluators(config):
  """Evaluator counts, MLP sizes, and that one request fits in an inference batch."""
  if config.evaluators.num < 0:
    raise ConfigError(f'evaluators.num: must be >= 0, got {config.evaluators.num}')
  if config.evaluators.num and config.evaluators.env_batch_size <= 0:
    raise ConfigError('evaluators.env_batch_size: must be positive, got '
                      f'{config.evaluators.env_batch_size}')
  if any((not isinstance(s, int)) or s <= 0 for s in config.network.mlp_sizes):
    raise ConfigError(f'network.mlp_sizes: expected positive integers, got '
                      f'{tuple(config.network.mlp_sizes)}')
  groups = config.actors.env_groups
  if not 1 <= groups <= config.actors.env_batch_size:
    raise ConfigError(f'actors.env_groups: must be in [1, actors.env_batch_size='
                      f'{config.actors.env_batch_size}], got {groups}')
  largest_request = max(env_ids.largest_actor_request(config),
                        config.evaluators.env_batch_size if config.evaluators.num else 0)
  if largest_request > config.inference.batch_size:
    raise ConfigError(
        f'inference.batch_size: {config.inference.batch_size} is smaller than one '
        f'actor request ({largest_request} environments)')


def _environment_info(config) -> envs.EnvironmentInfo:
  """Validates `config.env` (naming the key) and reads its specs."""
  try:
    env_batches.validate_config(config.env)
    return envs.EnvironmentInfo(config.env)  # Builds one: checks the env's contract.
  except ValueError as e:
    raise ConfigError(str(e)) from None


def validate_vtrace_config(config):
  """Raises ConfigError naming the first bad key of a V-trace config."""
  _check_program(config, VTRACE_SCHEMA, 'vtrace')
  _positive(config, 'network.torso_hidden_size', 'learner.batch_size',
            'learner.unroll_length', 'learner.queue_capacity', 'learner.queue_max_bytes',
            'learner.learning_rate', 'learner.adam_epsilon')
  _check_actors_and_evaluators(config)
  if config.network.torso not in networks.TORSOS:
    raise ConfigError(f'network.torso: expected one of {networks.TORSOS}, got '
                      f'{config.network.torso!r}')
  learner = config.learner
  if learner.queue_capacity < learner.batch_size:
    raise ConfigError(f'learner.queue_capacity: {learner.queue_capacity} unrolls cannot '
                      f'hold one training batch of {learner.batch_size}')
  for key in ('discount', 'lambda_', 'adam_beta1', 'adam_beta2'):
    if not 0.0 <= learner[key] <= 1.0:
      raise ConfigError(f'learner.{key}: must be in [0, 1], got {learner[key]}')
  for key in ('baseline_cost', 'entropy_cost', 'gradient_clip_norm',
              'clip_rho_threshold', 'clip_pg_rho_threshold'):
    if learner[key] < 0:
      raise ConfigError(f'learner.{key}: must be >= 0, got {learner[key]}')
  if learner.reward_clipping not in REWARD_CLIPPING_MODES:
    raise ConfigError(f'learner.reward_clipping: {learner.reward_clipping!r} is not one of '
                      f'{REWARD_CLIPPING_MODES}')
  if learner.reward_scale <= 0:
    raise ConfigError(f'learner.reward_scale: must be > 0, got {learner.reward_scale}')

  info = _environment_info(config)
  if config.network.torso != 'mlp' and len(info.observation_shape) not in (2, 3):
    raise ConfigError(f'network.torso: {config.network.torso!r} needs image observations, '
                      f'got shape {info.observation_shape}')
  step_bytes = (int(np.prod(info.observation_shape)) * info.observation_dtype.itemsize
                + 4 * (info.num_actions + 4))
  queue_bytes = learner.queue_capacity * (learner.unroll_length + 1) * step_bytes
  if queue_bytes > learner.queue_max_bytes:
    raise ConfigError(
        f'learner.unroll_length: {learner.queue_capacity} queued unrolls of '
        f'{learner.unroll_length + 1} steps take {queue_bytes / 2**30:.2f} GiB, more than '
        f'learner.queue_max_bytes ({learner.queue_max_bytes / 2**30:.2f} GiB); shorten the '
        'unroll or the queue')
  return info


# ---- R2D2 ----------------------------------------------------------------------------

# Keys of an R2D2 config beyond the common ones.
R2D2_SCHEMA = dict(COMMON_SCHEMA, **{
    'network': {
        'torso': str, 'mlp_sizes': tuple, 'torso_hidden_size': int, 'lstm_size': int,
        'head_hidden_size': int, 'frame_stack': int, 'compute_dtype': str,
        'center_frames': bool,
    },
    'exploration': {'base': float, 'alpha': float},
    'replay': {
        'capacity': int, 'min_size_to_sample': int, 'samples_per_insert': float,
        'error_buffer': float, 'priority_exponent': float, 'chunk_length': int,
    },
    'learner': {
        'batch_size': int, 'burn_in': int, 'unroll_length': int, 'n_step': int,
        'discount': float, 'target_update_period': int, 'learning_rate': float,
        'adam_epsilon': float, 'gradient_clip_norm': float,
        'importance_sampling_exponent': float, 'priority_eta': float,
        'value_rescale_eps': float, **DEVICE_SCHEMA,
    },
})


def _check_replay(replay, batch_size: int, stored_length: int):
  if replay.capacity < batch_size:
    raise ConfigError(f'replay.capacity: {replay.capacity} sequences cannot hold one '
                      f'training batch of {batch_size} (learner.batch_size)')
  if replay.min_size_to_sample > replay.capacity:
    raise ConfigError(f'replay.min_size_to_sample: {replay.min_size_to_sample} is more '
                      f'than the table can hold (replay.capacity={replay.capacity})')
  if replay.error_buffer < 2 * max(1.0, replay.samples_per_insert):
    raise ConfigError(f'replay.error_buffer: {replay.error_buffer} is below 2 * max(1, '
                      f'replay.samples_per_insert) = '
                      f'{2 * max(1.0, replay.samples_per_insert)}; the rate limiter '
                      'could block both inserts and samples')
  if replay.chunk_length > stored_length:
    raise ConfigError(f'replay.chunk_length: {replay.chunk_length} is longer than a '
                      f'stored sequence ({stored_length} steps)')


def validate_r2d2_config(config):
  """Raises ConfigError naming the first bad key of an R2D2 config."""
  _check_program(config, R2D2_SCHEMA, 'r2d2')
  _positive(config, 'network.torso_hidden_size', 'network.head_hidden_size',
            'network.frame_stack', 'replay.capacity', 'replay.min_size_to_sample',
            'replay.samples_per_insert', 'replay.error_buffer', 'replay.chunk_length',
            'learner.batch_size', 'learner.unroll_length', 'learner.n_step',
            'learner.target_update_period', 'learner.learning_rate', 'learner.adam_epsilon',
            'learner.value_rescale_eps')
  _check_actors_and_evaluators(config)
  for key in ('replay.priority_exponent', 'learner.discount',
              'learner.importance_sampling_exponent', 'learner.priority_eta'):
    section, leaf = key.split('.')
    if not 0.0 <= config[section][leaf] <= 1.0:
      raise ConfigError(f'{key}: must be in [0, 1], got {config[section][leaf]}')
  if not 0.0 < config.exploration.base <= 1.0:
    raise ConfigError(f'exploration.base: must be in (0, 1], got {config.exploration.base}')
  if config.exploration.alpha < 0:
    raise ConfigError(f'exploration.alpha: must be >= 0, got {config.exploration.alpha}')
  if config.network.torso not in networks.TORSOS:
    raise ConfigError(f'network.torso: expected one of {networks.TORSOS}, got '
                      f'{config.network.torso!r}')

  learner = config.learner
  if learner.gradient_clip_norm < 0:
    raise ConfigError(f'learner.gradient_clip_norm: must be >= 0 (0 disables), got '
                      f'{learner.gradient_clip_norm}')
  if learner.burn_in < 0:
    raise ConfigError(f'learner.burn_in: must be >= 0, got {learner.burn_in}')
  if learner.burn_in > learner.unroll_length:
    raise ConfigError(f'learner.burn_in: {learner.burn_in} burn-in steps are longer than '
                      f'the trained sequence they warm up (learner.unroll_length='
                      f'{learner.unroll_length})')
  sequence_length = learner.burn_in + learner.unroll_length + 1
  if learner.n_step > learner.unroll_length:
    raise ConfigError(f'learner.n_step: {learner.n_step} steps do not fit in the '
                      f'{learner.unroll_length} trained steps of a sequence '
                      '(learner.unroll_length)')
  _check_replay(config.replay, learner.batch_size,
                stored_length=sequence_length + config.network.frame_stack - 1)

  info = _environment_info(config)
  image = len(info.observation_shape) in (2, 3)
  if config.network.torso != 'mlp' and not image:
    raise ConfigError(f'network.torso: {config.network.torso!r} needs image observations, '
                      f'got shape {info.observation_shape}')
  if config.network.frame_stack > 1 and not (image and len(info.observation_shape) == 2):
    raise ConfigError(f'network.frame_stack: stacking needs single-channel frames '
                      f'[H, W], got observations of shape {info.observation_shape}')
  return info
