"""V-trace on Football's academy_empty_goal_close, tuned to learn on a 2-core machine.

simple115v2 observations (float32 [115]) with an MLP + LSTM; reward +1 for a goal.
`python benchmarks/football_academy.py` trains it and reports the return curve.
"""

import ml_collections

from configs import cartpole_vtrace


def get_config():
  config = cartpole_vtrace.get_config()
  config.total_environment_frames = 2_000_000
  config.onednn = False                        # MLP torso: oneDNN brings nothing here.

  config.env = ml_collections.ConfigDict()
  config.env.name = 'football'
  config.env.scenario = 'academy_empty_goal_close'  # Score into an empty goal, close by.
  config.env.representation = 'simple115v2'         # 115 floats: positions, ball, ...
  config.env.rewards = 'scoring'                    # +1 a goal.
  config.env.stacked = False                        # Only for SMM observations.

  config.network.torso = 'mlp'
  config.network.mlp_sizes = (128, 128)
  config.network.lstm_size = 64

  config.actors.num = 2
  config.actors.env_batch_size = 8
  config.evaluators.num = 1
  config.evaluators.env_batch_size = 2
  config.evaluators.epsilon = 0.0

  config.inference.batch_size = 16
  config.inference.timeout_us = 5000

  config.learner.batch_size = 8
  config.learner.unroll_length = 16
  config.learner.queue_capacity = 32
  config.learner.learning_rate = 0.0005
  config.learner.discount = 0.99
  config.learner.baseline_cost = 0.5
  config.learner.entropy_cost = 0.003
  config.learner.gradient_clip_norm = 1.0
  config.learner.reward_clipping = 'none'
  config.learner.reward_scale = 1.0

  config.logging.interval_seconds = 10.0
  return config
