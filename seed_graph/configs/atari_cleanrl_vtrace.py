"""V-trace on CleanRL's Atari protocol, the protocol of the published PPO table it is
compared with (CleanRL's `ppo_atari.py` and openai/baselines' PPO at 40M frames):
`*NoFrameskip-v4` games (no sticky actions, the game's own action set; games are cut at
100k frames, where gym cuts them at 400k), up to 30 no-op starts, frame skip 4 with
max-pooling, 84x84 grayscale, 4 stacked frames, rewards clipped to [-1, 1], a lost life
ends the training episode and FIRE starts each one; returns are reported per whole game
(all lives).

The agent is the fast config's (Nature DQN convolutions, no LSTM) with CleanRL's inputs
(pixels scaled to [0, 1], not centered), initialization (orthogonal weights), Adam
epsilon (1e-5) and float32 arithmetic, trained like APPO: each batch of 32 unrolls of 32
steps is used for 4 epochs of 4 minibatches, with PPO's clipped surrogate on V-trace
advantages.

    python -m seed_graph.launch.local --config=atari_cleanrl_vtrace \
        --logdir=logs/breakout --config.env.game=Breakout
    python -m benchmarks.atari_suite     # the table: docs/results/atari.md
"""

from seed_graph.configs import atari_vtrace_fast


def get_config():
  config = atari_vtrace_fast.get_config()
  config.total_environment_frames = 40_000_000
  config.env.episodic_life = True
  config.env.fire_reset = True
  config.env.max_episode_frames = 100_000     # Gym's NoFrameskip-v4: 400k (100k steps
                                              # of 1 frame). A game that reaches it is
                                              # counted: `time_limited_games`.
  config.network.initialization = 'orthogonal'  # CleanRL's; Breakout learns far sooner.
  config.network.center_frames = False        # CleanRL's [0, 1] pixels and Adam epsilon:
  config.learner.adam_epsilon = 1e-5          # Breakout twice as far at 4.5M frames.
  config.network.compute_dtype = 'float32'    # CleanRL's; 1.43x bfloat16's frames/s on
                                              # an AMX CPU (docs/results/speed.md).
  config.learner.batch_size = 32              # 1024 agent steps a batch ...
  config.learner.unroll_length = 32
  config.learner.epochs = 4                   # ... used 4 times,
  config.learner.minibatches = 4              # in steps of 256.
  config.learner.policy_clip = 0.1
  config.learner.normalize_advantages = True
  config.learner.lambda_ = 0.95
  config.learner.learning_rate = 2.5e-4
  config.learner.entropy_cost = 0.01
  config.learner.gradient_clip_norm = 0.5
  config.learner.queue_capacity = 64
  return config
