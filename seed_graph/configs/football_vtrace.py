"""V-trace on Google Research Football, the full game SEED RL reports
(11_vs_11_easy_stochastic, 4 stacked super mini-maps: uint8 [72, 96, 16], scoring
reward), with SEED's ResNet torso + LSTM 256 and its Football learning rate. Needs
`bash scripts/install_football.sh .venv/bin/python`. The environment steps about 155
times a second per core here, so a useful run wants many more actors than a laptop has.
"""

from seed_graph.programs import registry


def get_config():
  config = registry.default_config('vtrace', env='football')
  config.total_environment_frames = 500_000_000
  config.onednn = True                        # oneDNN convolutions.
  config.env.frame_stack = 4
  config.network.torso = 'resnet'
  config.network.lstm_size = 256
  config.actors.env_batch_size = 8            # Raise actors.num on a big machine (SEED
                                              # used hundreds).
  config.evaluators.env_batch_size = 1
  config.inference.batch_size = 16
  config.inference.timeout_us = 10_000
  config.inference.jit_compile = False        # The ResNet under XLA: 2.9x the CPU per call.
  config.learner.batch_size = 16
  config.learner.unroll_length = 32
  config.learner.queue_capacity = 32
  config.learner.discount = 0.993
  config.learner.entropy_cost = 0.003
  config.learner.reward_clipping = 'none'     # Scoring rewards are already in [-1, 1].
  config.logging.interval_seconds = 30.0
  return config
