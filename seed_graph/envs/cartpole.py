"""CartPole-v1 (gymnasium's classic control), 500-step episodes."""

import gymnasium

from seed_graph.envs import gym_adapter


KEYS = {}  # CartPole-v1 has no settings.


def validate_config(env_config):
  del env_config  # CartPole has no settings.


def make_environment(env_config, seed: int) -> gym_adapter.GymnasiumEnv:
  del env_config
  return gym_adapter.GymnasiumEnv(gymnasium.make('CartPole-v1'), seed)
