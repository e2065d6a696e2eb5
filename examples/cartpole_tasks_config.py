"""Two CartPole tasks for `examples/many_tasks.py`: Gymnasium's CartPole-v1 (episodes
cut at 500 steps) and CartPole-v0 (at 200), which share their spaces. The V-trace
CartPole preset otherwise."""

import seed_graph as sg
from seed_graph.configs import cartpole_vtrace


def get_config():
  config = cartpole_vtrace.get_config()
  config.env = sg.default_config('vtrace', 'gymnasium').env
  config.env.id = 'CartPole-v1'
  return config
