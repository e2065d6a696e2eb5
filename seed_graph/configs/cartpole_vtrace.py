"""V-trace on CartPole-v1: the embedded default, small and fast on a 2-core laptop.

Many environments with short unrolls (32 x 5 steps a batch) give frequent, decorrelated
updates, like A2C; it reaches the 500-step maximum within 500k frames.

    python -m seed_graph.launch.local --config=cartpole_vtrace --logdir=logs/cp

`--print_config` lists every key with its documentation; override any on the command
line, e.g. `--config.actors.num=4`.
"""

from seed_graph.programs import registry


def get_config():
  config = registry.default_config('vtrace', env='cartpole')
  config.total_environment_frames = 500_000
  config.learner.unroll_length = 5            # Short unrolls: many updates per frame.
  config.learner.learning_rate = 2e-3
  config.learner.entropy_cost = 0.003
  config.learner.reward_clipping = 'none'     # CartPole's +1 a step needs no clipping ...
  config.learner.reward_scale = 0.01          # ... but scaling: values near 100 unscaled
                                              # made a third of runs collapse.
  config.learner.gradient_clip_norm = 1.0     # Tight clipping stops late collapses.
  return config
