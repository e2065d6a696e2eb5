"""V-trace on Google Research Football, full game (for big machines).

11_vs_11_easy_stochastic with stacked super-mini-map observations (uint8 [72, 96, 16])
and scoring reward, the setting SEED RL reports for Football. The learning rate is SEED
RL's Football V-trace value (0.00048); the network is SEED's ResNet torso + LSTM 256 on
the stacked map. Needs `bash scripts/install_football.sh .venv/bin/python` (done by
scripts/test.sh). Env-only speed on this 2-core machine is about 155 steps/s per core,
so a useful run wants many more actors than a laptop has.
"""

import ml_collections

from configs import cartpole_vtrace


def get_config():
  config = cartpole_vtrace.get_config()
  config.total_environment_frames = 500_000_000
  config.onednn = True                         # oneDNN convolutions (a Nature-CNN training step:
                                               # 1.14 s instead of 2.08 s on 2 cores).

  config.env = ml_collections.ConfigDict()
  config.env.name = 'football'
  config.env.scenario = '11_vs_11_easy_stochastic'  # Any gfootball scenario name.
  config.env.representation = 'extracted'           # SMM 'extracted' or 'simple115v2'.
  config.env.rewards = 'scoring'                    # Or 'scoring,checkpoints'.
  config.env.stacked = True                         # Stack 4 SMM frames -> 16 channels.

  config.network.torso = 'resnet'
  config.network.lstm_size = 256
  config.network.torso_hidden_size = 256

  config.actors.num = 2                  # Raise on a big machine (SEED used hundreds).
  config.actors.env_batch_size = 8
  config.evaluators.num = 1
  config.evaluators.env_batch_size = 1
  config.evaluators.epsilon = 0.0

  config.inference.batch_size = 16
  config.inference.timeout_us = 10_000
  config.inference.jit_compile = False         # The ResNet under XLA: 2.9x the CPU per call
                                               # on Atari frames in float32 (atari_vtrace.py).

  config.learner.batch_size = 16
  config.learner.unroll_length = 32
  config.learner.queue_capacity = 32
  config.learner.learning_rate = 0.00048
  config.learner.adam_epsilon = 1e-7  # SEED RL's Football optimizer is Keras Adam's default;
                                      # 1e-3 stalls mean-reduced losses (see atari_vtrace).
  config.learner.discount = 0.993
  config.learner.baseline_cost = 0.5
  config.learner.entropy_cost = 0.003
  config.learner.gradient_clip_norm = 40.0
  config.learner.reward_clipping = 'none'   # Scoring rewards are already in [-1, 1].
  config.learner.reward_scale = 1.0

  config.logging.interval_seconds = 30.0
  config.logging.eval_return_window = 10       # Full games are 3,000 steps: 100 evaluation
                                               # episodes would span the run.
  config.logging.checkpoint_interval_seconds = 120.0  # Model and optimizer only: cheap.
  return config
