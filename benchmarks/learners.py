"""What the benchmarks build from a config alone: the learner they measure (V-trace, or
R2D2 with its Reverb replay server in the same process), what its actors step, and the
config itself from `--config` and `--config.KEY=VALUE` (the launchers' one parser).

TensorFlow is imported only inside these functions: benchmark modules are imported again
by every process they spawn, and an actor or env-only process must not load it."""

import sys


def load_config(path, overrides):
  """`config_args.load(path, overrides)`, checked as a program would check it (the
  environment is built once); exits with the ConfigError's line if it is bad."""
  from seed_graph.config_schema import ConfigError  # pylint: disable=g-import-not-at-top
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
  return envs.acting_config(config.env, registry.program(config).ALGORITHM.stacks_frames)


def build_learner(config, inference_port=None):
  """(learner, replay server or None) for `config.algorithm`; the learner serves
  inference on `inference_port` if given. Keep the server referenced while the learner
  runs: the learner holds only its address."""
  from seed_graph.nodes import learner as learner_lib  # pylint: disable=g-import-not-at-top
  if config.algorithm == 'r2d2':
    import reverb  # pylint: disable=g-import-not-at-top
    from seed_graph import envs  # pylint: disable=g-import-not-at-top
    from seed_graph.algos import learner_devices  # pylint: disable=g-import-not-at-top
    from seed_graph.algos.r2d2 import learning as r2d2_learner  # pylint: disable=g-import-not-at-top
    from seed_graph.algos.r2d2 import replay as r2d2_replay  # pylint: disable=g-import-not-at-top
    if config.learner.training_strategy == 'mirrored':
      # A CPU split must come before TensorFlow initializes, which building the table
      # signature below does; the learner finds it made.
      learner_devices.make_learner_devices(config.learner)
    # The replay node's tables: on what the actors step (single frames).
    spec = envs.read_spec(acting_env(config))
    replay = reverb.Server(r2d2_replay.make_replay_tables(config, spec), port=None)
    return learner_lib.Learner(config, r2d2_learner.R2D2Learner, f'localhost:{replay.port}',
                               inference_port=inference_port), replay
  from seed_graph.algos.vtrace import learning as vtrace_learner  # pylint: disable=g-import-not-at-top
  return learner_lib.Learner(config, vtrace_learner.VTraceLearner,
                             inference_port=inference_port), None
