"""V-trace on Football's academy_empty_goal_close (score into an empty goal from close
by), tuned to learn on a 2-core machine: simple115v2 observations (float32 [115]) with
an MLP + LSTM; reward +1 a goal. `python -m benchmarks.football_academy` trains it and
reports the return curve.
"""

from seed_graph.programs import registry


def get_config():
  config = registry.default_config('vtrace', env='football')
  config.total_environment_frames = 2_000_000
  config.env.scenario = 'academy_empty_goal_close'
  config.env.representation = 'simple115v2'
  config.network.mlp_sizes = (128, 128)
  config.actors.env_batch_size = 8
  config.inference.batch_size = 16
  config.inference.timeout_us = 5000
  config.learner.batch_size = 8
  config.learner.unroll_length = 16
  config.learner.queue_capacity = 32
  config.learner.learning_rate = 0.0005
  config.learner.entropy_cost = 0.003
  config.learner.gradient_clip_norm = 1.0
  config.learner.reward_clipping = 'none'
  config.logging.interval_seconds = 10.0
  return config
