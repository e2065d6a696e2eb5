"""V-trace on your own environment: the corridor of `examples/random_walk.py`, built by
import string (`env.name = 'custom'`, `env.factory`), every other key as for CartPole.

    python -m launch.local --config=configs/random_walk_vtrace.py --logdir=/tmp/walk
"""

import ml_collections

from configs import cartpole_vtrace


def get_config():
  config = cartpole_vtrace.get_config()
  config.total_environment_frames = 100_000  # The corridor is learned in a few thousand.

  config.env = ml_collections.ConfigDict()
  config.env.name = 'custom'                     # An environment of your own ...
  config.env.factory = 'examples.random_walk:make_env'  # ... made by module:function,
  config.env.kwargs = ml_collections.ConfigDict({      # called with seed= and these.
      'length': 9,                               # Cells; the agent starts in the middle.
      'max_steps': 50,                           # Steps before an episode is cut.
  })
  return config
