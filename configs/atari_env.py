"""The Atari environment section shared by the Atari configs (not a config itself).

SEED RL's Atari protocol: sticky actions 0.25, frame skip 4 with max-pooling, 84x84
grayscale, up to 30 no-op starts, full action set, episodes capped at 108k frames.
"""

import ml_collections


def atari_env_config(game: str = 'Pong') -> ml_collections.ConfigDict:
  env = ml_collections.ConfigDict()
  env.name = 'atari'
  env.game = game                           # Any ALE game name, e.g. 'Breakout'.
  env.sticky_action_probability = 0.25      # Chance the previous action repeats.
  env.frame_skip = 4                        # Frames per agent step (max-pooled).
  env.screen_size = 84                      # Observations are screen_size^2 grayscale.
  env.noop_max = 30                         # Up to this many no-ops at episode start.
  env.full_action_space = True              # All 18 actions, whatever the game.
  env.max_episode_frames = 108_000          # 30 minutes of play at 60 Hz.
  env.backend = 'python'                    # Who steps an actor's environments: 'python'
                                            # (ale-py + gymnasium, one object each, in a
                                            # Python loop) or 'envpool' (EnvPool's C++
                                            # threads, same protocol; seed_graph/env_batches).
  env.envpool_threads = 1                   # EnvPool threads per actor env group.
  env.frame_stack = 1                       # Last k observations stacked ([84, 84, k]) on
                                            # the actor; R2D2 stacks on the learner instead
                                            # (network.frame_stack).
  return env
