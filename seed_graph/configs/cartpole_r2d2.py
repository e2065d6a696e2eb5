"""R2D2 on CartPole-v1: small and fast on a 2-core laptop (learns within 1M frames).

    python -m seed_graph.launch.local --config=cartpole_r2d2 --logdir=logs/cp_r2d2
"""

from seed_graph.programs import registry


def get_config():
  config = registry.default_config('r2d2', env='cartpole')
  config.total_environment_frames = 1_000_000
  config.network.torso_hidden_size = 512
  config.network.head_hidden_size = 64
  config.actors.env_batch_size = 8
  config.evaluators.epsilon = 0.001           # Ape-X's evaluation epsilon.
  config.inference.batch_size = 32
  config.replay.capacity = 4000
  config.replay.min_size_to_sample = 64
  config.replay.samples_per_insert = 4.0      # Each sequence sampled ~4 times: CartPole's
  config.replay.error_buffer = 256.0          # data is cheap to reuse.
  config.replay.chunk_length = 10
  config.learner.batch_size = 16             # Small steps, often: the learner is the limit.
  config.learner.burn_in = 10
  config.learner.unroll_length = 20
  config.learner.discount = 0.99
  config.learner.target_update_period = 200
  config.learner.learning_rate = 1e-3
  config.learner.gradient_clip_norm = 40.0
  return config
