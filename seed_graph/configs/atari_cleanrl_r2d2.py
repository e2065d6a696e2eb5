"""R2D2 on CleanRL's Atari protocol (the environment settings of `atari_cleanrl_vtrace`:
`*NoFrameskip-v4` games, the game's own actions, episodes cut at 100k frames, a lost
life ends the training episode, FIRE starts each one), sized so that a 2-core machine
trains it at a DQN-like replay ratio: R2D2's agent and losses (`atari_r2d2`), with
shorter, fewer sequences per step and a target network copied far more often.

| setting | `atari_r2d2` (SEED RL) | here | why |
| --- | --- | --- | --- |
| batch, burn-in + unroll | 64, 40 + 80 | 16, 10 + 20 | many small updates (below) |
| samples per insert | 1 | 4 | each trained step is replayed ~4 times, as DQN's ~8 |
| target network copied every | 2,500 steps | 500 steps | ~2,500 steps are hours here |
| replay: sequences, warm-up | 20,000, 500 | 40,000, 500 | 1.2M steps kept, in sequences of 31 |
| Adam step size, epsilon | 1e-4, 1e-3 | 1e-4, 1e-4 | |

Many small updates: at the same replay ratio, 32 sequences of 20 + 40 steps a step,
the target copied every 200 steps and Adam 2e-4 (this config's first sizes) had not
left Pong's -20 at 6.6M frames (5,100 steps); a quarter the size and 4x the updates
reached -5.6 at 10M frames (31,000 steps; docs/results/r2d2.md).

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
  config.env.max_episode_frames = 100_000     # As atari_cleanrl_vtrace (gym's: 400k).
  config.learner.batch_size = 16
  config.learner.burn_in = 10
  config.learner.unroll_length = 20
  config.replay.chunk_length = 10
  config.replay.capacity = 40_000
  config.replay.samples_per_insert = 4.0
  config.replay.min_size_to_sample = 500
  config.learner.target_update_period = 500
  config.learner.learning_rate = 1e-4
  config.learner.adam_epsilon = 1e-4
  config.logging.checkpoint_interval_seconds = 300.0  # Each saves the replay too.
  return config
