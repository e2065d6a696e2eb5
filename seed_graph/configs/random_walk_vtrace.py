"""V-trace on your own environment: the corridor of `examples/random_walk.py`, built by
import string (`env.name = 'custom'`, `env.factory`), every other key as for CartPole.

    python -m seed_graph.launch.local --config=random_walk_vtrace --logdir=/tmp/walk
"""

from seed_graph.configs import cartpole_vtrace
from seed_graph.programs import registry


def get_config():
  config = cartpole_vtrace.get_config()
  config.total_environment_frames = 100_000   # The corridor is learned in a few thousand.
  config.env = registry.default_config('vtrace', env='custom').env
  config.env.factory = 'examples.random_walk:make_env'
  config.env.kwargs = {'length': 9,           # Cells; the agent starts in the middle.
                       'max_steps': 50}       # Steps before an episode is cut.
  return config
