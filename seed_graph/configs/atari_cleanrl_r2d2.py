"""R2D2 on CleanRL's Atari protocol (the environment settings of `atari_cleanrl_vtrace`:
`*NoFrameskip-v4` games, the game's own actions, episodes cut at 100k frames, a lost
life ends the training episode, FIRE starts each one), sized so that a 2-core machine
trains it at a DQN-like replay ratio: R2D2's agent and losses (`atari_r2d2`), with
shorter, fewer sequences per step and a target network copied far more often.

| setting | `atari_r2d2` (SEED RL) | here | why |
| --- | --- | --- | --- |
| batch, burn-in + unroll | 64, 40 + 80 | 32, 20 + 40 | a training step of ~2 s, not ~9 s |
| samples per insert | 1 | 4 | each trained step is replayed ~4 times, as DQN's ~8 |
| target network copied every | 2,500 steps | 200 steps | ~2,500 steps are hours here |
| replay warm-up | 500 sequences | 250 | |
| Adam step size, epsilon | 1e-4, 1e-3 | 2e-4, 1e-4 | fewer, larger steps (see r2d2.md) |

    python -m seed_graph.launch.local --config=atari_cleanrl_r2d2 \
        --logdir=logs/pong_r2d2 --config.env.game=Pong
"""

from seed_graph.configs import atari_r2d2


def get_config():
  config = atari_r2d2.get_config()
  config.total_environment_frames = 10_000_000
  config.env.sticky_action_probability = 0.0  # CleanRL's protocol (NoFrameskip-v4).
  config.env.full_action_space = False
  config.env.episodic_life = True
  config.env.fire_reset = True
  config.env.max_episode_frames = 100_000
  config.learner.batch_size = 32
  config.learner.burn_in = 20
  config.learner.unroll_length = 40
  config.replay.chunk_length = 20
  config.replay.samples_per_insert = 4.0
  config.replay.min_size_to_sample = 250
  config.learner.target_update_period = 200
  config.learner.learning_rate = 2e-4
  config.learner.adam_epsilon = 1e-4
  config.logging.checkpoint_interval_seconds = 300.0  # Each saves the replay too.
  return config
