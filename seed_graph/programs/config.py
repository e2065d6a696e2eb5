"""The config of a program: the keys every program has (`COMMON_SCHEMA`), those every
algorithm has (`SHARED_ALGORITHM_KEYS`: the network's torso, the learner's devices), the
environment's (`seed_graph.envs.keys`) and the algorithm's own (its builder's `schema`),
each declared once (`seed_graph.config.schema`), and the checks that span them.

`schema(config_or_env_name, algorithm_schema)` assembles them; `validate(config,
builder)` runs every check before anything starts and returns the spec of the
environment the actors step.
"""

from typing import Optional, Union

import ml_collections

from seed_graph.config import schema as config_schema
from seed_graph import envs
from seed_graph.config import id_ranges
from seed_graph.algos import base
from seed_graph.algos import learner_devices
from seed_graph.algos import networks
from seed_graph.algos.builder import AlgorithmBuilder
from seed_graph.config.schema import ConfigError
from seed_graph.config.schema import Key
from seed_graph.config.schema import in_range
from seed_graph.config.schema import non_negative
from seed_graph.config.schema import positive
from seed_graph.envs import backends as env_backends

COMMON_SCHEMA = {
    'algorithm': Key('vtrace', 'A folder of seed_graph/algos (vtrace, r2d2), or the module '
                     'of an algorithm of one\'s own (its BUILDER: seed_graph.algos.builder).',
                     fixed=True),
    'seed': Key(0, 'Base seed: the learner uses it, actor i seed + 1000 * (i + 1), '
                'its environment j that + j.', non_negative),
    'logdir': Key('', 'Where metrics, checkpoints and logs go; set by --logdir.'),
    'total_environment_frames': Key(10_000_000, 'Stop after this many environment '
                                    'frames (frame skip included).', positive),
    'onednn': Key(False, "TensorFlow's oneDNN CPU kernels in every node: faster "
                  'convolutions, no gain for small MLPs.'),
    'actors': {
        'num': Key(2, 'Actor processes.', positive),
        'env_batch_size': Key(16, 'Environments stepped by each actor.', positive),
        'env_groups': Key(1, 'Pipelined groups: with 2, an actor steps one half of its '
                          'environments while the learner answers the other.', positive),
    },
    'evaluators': {
        'num': Key(1, 'Evaluator processes (0 for none).', non_negative),
        'env_batch_size': Key(2, 'Environments per evaluator.', positive),
        'epsilon': Key(0.0, 'Random-action probability of evaluation; 0 is greedy.',
                       in_range(0.0, 1.0)),
    },
    'inference': {
        'batch_size': Key(64, 'Most environments in one inference call.', positive),
        'timeout_us': Key(2000, 'Longest wait for a batch to fill (microseconds).',
                          positive),
        'jit_compile': Key(True, 'The policy as one XLA program per padded batch size '
                           '(TensorFlow 2.8 also leaks ~420 B per non-XLA call).'),
        'keepalive_seconds': Key(10.0, 'Both ends of the inference edge ping this often; '
                                 'a peer silent twice as long is dropped.', positive),
    },
    'logging': {
        'interval_seconds': Key(5.0, 'Seconds between metrics.jsonl lines.', positive),
        'return_window': Key(100, 'Training episodes in each mean return.', positive),
        'eval_return_window': Key(10, 'Evaluation episodes in each mean return: few, '
                                  'since evaluators play few episodes and a longer '
                                  'window would average over most of the run.', positive),
        'checkpoint_interval_seconds': Key(120.0, 'Seconds between checkpoints; a stop '
                                           '(Ctrl-C, SIGTERM, the end) also saves.',
                                           positive),
        'memory_restart_percent': Key(5.0, 'The learner restarts from a checkpoint it '
                                      'has just written once its memory has grown this '
                                      'much (TensorFlow 2.8 keeps ~540 B per training '
                                      'step) and memory_restart_min_mib; 0: never.',
                                      non_negative),
        'memory_restart_min_mib': Key(256.0, 'The least growth (MiB) that restarts the '
                                      'learner: more than its warm-up\'s (an Atari '
                                      'learner: 50-80 MiB in its first 15 minutes).',
                                      non_negative),
    },
}


# Sections every algorithm's config has; an algorithm's schema adds keys to them.
SHARED_ALGORITHM_KEYS = {'network': networks.NETWORK_KEYS,
                         'learner': learner_devices.DEVICE_KEYS}


def _with_shared_keys(algorithm_schema: config_schema.Schema) -> config_schema.Schema:
  merged = dict(algorithm_schema)
  for section, shared in SHARED_ALGORITHM_KEYS.items():
    own = algorithm_schema.get(section, {})
    clash = sorted(set(own) & set(shared))
    if clash:
      raise ValueError(f'{section}.{clash[0]}: declared by the framework for every '
                       'algorithm; an algorithm\'s schema may not declare it again')
    merged[section] = {**own, **shared}
  return merged


def schema(config_or_env_name: Union[str, ml_collections.ConfigDict],
           algorithm_schema: config_schema.Schema) -> config_schema.Schema:
  """Every key of a program on that environment with that algorithm."""
  env_name = config_or_env_name
  if not isinstance(env_name, str):
    env_name = config_or_env_name.env.name
    error = envs.COMMON_KEYS['name'].error(env_name)
    if error:
      raise ConfigError(f'env.name: {error}')
  return {**COMMON_SCHEMA, 'env': envs.keys(env_name),
          **_with_shared_keys(algorithm_schema)}


def defaults(env_name: str, algorithm_schema: config_schema.Schema,
             algorithm: str) -> ml_collections.ConfigDict:
  config = config_schema.defaults(schema(env_name, algorithm_schema))
  config.algorithm = algorithm
  config.env.name = env_name
  return config


def _check_common(config: ml_collections.ConfigDict) -> None:
  if not config.logdir:
    raise ConfigError('logdir: empty; pass --logdir=DIR')
  if config.seed >= 2**31 - 1000 * (config.actors.num + config.evaluators.num + 1):
    raise ConfigError(f'seed: must leave room for every node\'s seed (seed + 1000 per '
                      f'node) below 2**31, got {config.seed}')
  if config.actors.env_groups > config.actors.env_batch_size:
    raise ConfigError(f'actors.env_groups: must be in [1, actors.env_batch_size='
                      f'{config.actors.env_batch_size}], got {config.actors.env_groups}')
  largest_request = max(id_ranges.largest_actor_request(config),
                        config.evaluators.env_batch_size if config.evaluators.num else 0)
  if largest_request > config.inference.batch_size:
    raise ConfigError(
        f'inference.batch_size: {config.inference.batch_size} is smaller than one '
        f'actor request ({largest_request} environments)')
  network = config.network
  if network.compute_dtype == 'bfloat16' and network.torso == 'mlp':
    raise ConfigError("network.compute_dtype: only the convolution torsos compute in "
                      f"{network.compute_dtype}; the 'mlp' torso is float32")
  if network.compute_dtype == 'bfloat16' and not config.onednn:
    raise ConfigError('network.compute_dtype: bfloat16 needs onednn=True (without oneDNN, '
                      "TensorFlow 2.8's CPU convolutions return float32)")
  try:
    learner_devices.validate_config(config)
  except ValueError as error:
    raise ConfigError(str(error)) from None


def validate(config: ml_collections.ConfigDict, algorithm: AlgorithmBuilder,
             full_schema: Optional[config_schema.Schema] = None) -> base.EnvironmentSpec:
  """Raises ConfigError naming the first bad key of a program's config, before anything
  starts; returns the spec of what the actors step. `full_schema`, if given, is every
  key the config may have (a program's own too)."""
  config_schema.check(config, full_schema or schema(config, algorithm.schema))
  _check_common(config)
  env = envs.acting_config(config.env, algorithm.stacks_frames)
  try:
    env_backends.validate_config(env)
    spec = envs.read_spec(env)  # Builds one: checks the environment's contract.
  except (ValueError, ImportError) as error:  # ImportError: gfootball missing, say.
    raise ConfigError(str(error)) from None
  if config.network.torso != 'mlp' and len(spec.observation_shape) not in (2, 3):
    raise ConfigError(f'network.torso: {config.network.torso!r} needs image observations, '
                      f'got shape {spec.observation_shape}')
  algorithm.check(config, spec)
  return spec
