"""What the benchmarks build from a config alone: the learner they measure (with its
Reverb replay server in the same process, for an algorithm that learns from one), what its
actors step, and the config itself from `--config` and `--config.KEY=VALUE` (the launchers'
one parser).

TensorFlow is imported only inside these functions: benchmark modules are imported again
by every process they spawn, and an actor or env-only process must not load it."""

import sys


def load_config(path, overrides):
  """`config_args.load(path, overrides)`, checked as a program would check it (the
  environment is built once); exits with the ConfigError's line if it is bad."""
  from seed_graph.config.schema import ConfigError  # pylint: disable=g-import-not-at-top
  from seed_graph.launch.runs import config_args  # pylint: disable=g-import-not-at-top
  from seed_graph.programs import registry  # pylint: disable=g-import-not-at-top
  try:
    config = config_args.load(path, overrides)
    config.logdir = '/tmp/seed_graph_benchmark_unused'  # Each benchmark sets its own.
    registry.validate_config(config)
  except ConfigError as error:
    sys.exit(f'error: {error}')
  return config


def acting_env(config):
  """The `env` config the actors of `config`'s program step: single frames when its
  learner stacks them (R2D2), `config.env` otherwise."""
  from seed_graph import envs  # pylint: disable=g-import-not-at-top
  from seed_graph.programs import registry  # pylint: disable=g-import-not-at-top
  return envs.acting_config(config.env, registry.algorithm_builder(config).stacks_frames)


def build_learner(config, inference_port=None):
  """(learner, replay server or None) for `config.algorithm`, with its replay server in
  this process if it learns from one; the learner serves inference on `inference_port`
  if given. Keep the server referenced while the learner runs: the learner holds only
  its address."""
  from seed_graph.nodes.learner import shell as learner_lib  # pylint: disable=g-import-not-at-top
  from seed_graph.programs import registry  # pylint: disable=g-import-not-at-top
  algorithm = registry.algorithm_builder(config)
  if not algorithm.uses_replay:
    return learner_lib.Learner(config, algorithm.algorithm,
                               inference_port=inference_port), None
  import reverb  # pylint: disable=g-import-not-at-top
  from seed_graph import envs  # pylint: disable=g-import-not-at-top
  from seed_graph.algos import learner_devices  # pylint: disable=g-import-not-at-top
  if config.learner.training_strategy in ('mirrored', 'gpu'):
    # A CPU split (or a GPU's memory growth) must come before TensorFlow initializes,
    # which building the tables below may do (R2D2's signature builds its network); the
    # learner finds it made.
    learner_devices.make_learner_devices(config.learner)
  # The replay node's tables: on what the actors step.
  spec = envs.read_spec(acting_env(config))
  replay = reverb.Server(algorithm.replay_tables(config, spec), port=None)
  return learner_lib.Learner(config, algorithm.algorithm, f'localhost:{replay.port}',
                             inference_port=inference_port), replay
