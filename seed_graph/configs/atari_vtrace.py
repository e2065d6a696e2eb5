"""V-trace on Atari with SEED RL's settings: its protocol (sticky actions 0.25, frame
skip 4 with max-pooling, 84x84 grayscale, up to 30 no-op starts, all 18 actions,
episodes capped at 108k frames), its deep ResNet torso + LSTM 256, and its V-trace
hyperparameters (Adam at 0.00048 decayed linearly to 0, 32 unrolls of 100 steps).

    python -m seed_graph.launch.local --config=atari_vtrace --logdir=logs/pong \
        [--config.env.game=Breakout]
"""

from seed_graph.programs import registry


def get_config():
  config = registry.default_config('vtrace', env='atari')
  config.total_environment_frames = 200_000_000
  config.onednn = True                        # oneDNN convolutions: a Nature-CNN training
                                              # step takes 1.14 s instead of 2.08 s here.
  config.network.torso = 'resnet'
  config.network.lstm_size = 256
  config.network.torso_hidden_size = 256
  config.network.compute_dtype = 'auto'       # bfloat16 (as XLA multiplies on SEED's TPUs)
                                              # where it is faster, on CPUs with AVX512-BF16
                                              # and no AMX; float32 elsewhere.
  config.evaluators.epsilon = 0.01
  config.inference.batch_size = 34            # Every environment (2 x 16 actors' + 2
                                              # evaluator rows): at 32 the evaluator's
                                              # requests split the actors' batches.
  config.inference.timeout_us = 10_000
  config.inference.jit_compile = False        # XLA's CPU convolutions cost 4x oneDNN's
                                              # (benchmarks/inference_call.py).
  config.logging.interval_seconds = 30.0
  return config
