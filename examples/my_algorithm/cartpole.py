"""The n-step actor-critic of `examples.my_algorithm` on CartPole-v1 (a feed-forward MLP).

    python -m seed_graph.launch.local --config=examples/my_algorithm/cartpole.py \\
        --logdir=logs/my_algorithm
"""

import seed_graph as sg


def get_config():
  config = sg.default_config('examples.my_algorithm', env='cartpole')
  config.total_environment_frames = 500_000
  config.network.lstm_size = 0  # Feed-forward: this algorithm keeps no recurrent state.
  return config
