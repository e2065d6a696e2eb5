"""R2D2 on Atari with SEED RL's R2D2 settings (sequences of burn-in 40 + unroll 80 + 1,
5-step double-Q targets, discount 0.997, value rescaling, target network every 2500
steps, batch 64, Adam 1e-4, 4 stacked frames stacked on the learner, the Nature DQN
convolutions + LSTM 512 + dueling heads of 512) and its Atari protocol, sized for a
24 GiB, 2-core machine: a replay of 20k sequences (1.6M steps) measured at about 1.5 GiB
(docs/results/r2d2.md); give a bigger machine more.

    python -m seed_graph.launch.local --config=atari_r2d2 --logdir=logs/pong_r2d2
"""

from seed_graph.programs import registry


def get_config():
  config = registry.default_config('r2d2', env='atari')
  config.total_environment_frames = 200_000_000
  config.onednn = True                        # oneDNN convolutions.
  config.env.frame_stack = 4
  config.network.torso = 'atari'
  config.network.torso_hidden_size = 512
  config.network.lstm_size = 512
  config.evaluators.epsilon = 0.001
  config.inference.batch_size = 32
  config.inference.timeout_us = 10_000
  config.inference.jit_compile = False        # XLA's CPU convolutions cost more than oneDNN's.
  config.logging.interval_seconds = 30.0
  config.logging.checkpoint_interval_seconds = 600.0  # Each saves the replay too.
  return config
