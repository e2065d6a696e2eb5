"""V-trace on Atari (ALE via ale-py + gymnasium): SEED RL's protocol, ResNet, V-trace defaults.

Environment protocol: sticky actions 0.25, frame skip 4 with max-pooling, 84x84
grayscale, up to 30 no-op starts, full action set, episodes capped at 108k frames.
Optimizer: Adam, learning rate 0.00048 (SEED RL's V-trace value) decayed linearly to 0,
epsilon 1e-7. Network: SEED's deep ResNet torso (bfloat16 products) + LSTM 256.
`--config.env.game=Breakout` picks another game.
"""

from configs import atari_env
from configs import cartpole_vtrace


def get_config():
  config = cartpole_vtrace.get_config()
  config.total_environment_frames = 200_000_000
  config.onednn = True                         # oneDNN convolutions (a Nature-CNN training step:
                                               # 1.14 s instead of 2.08 s on 2 cores).

  config.env = atari_env.atari_env_config()  # SEED RL's Atari protocol.

  config.network.torso = 'resnet'
  config.network.lstm_size = 256
  config.network.torso_hidden_size = 256
  config.network.compute_dtype = 'bfloat16'    # The torso's products in bfloat16, as on SEED's
                                               # TPUs (XLA multiplies float32 in bfloat16
                                               # there by default); variables, LSTM and heads
                                               # stay float32. Here 1.5x the training frames/s
                                               # of float32 (README); it pays on CPUs with
                                               # AVX512-BF16, elsewhere set 'float32'.

  config.actors.num = 2
  config.actors.env_batch_size = 16
  config.evaluators.num = 1
  config.evaluators.env_batch_size = 2
  config.evaluators.epsilon = 0.01

  config.inference.batch_size = 34             # Every environment (2 x 16 actors' + 2 evaluator
                                               # rows): at 32 the evaluator's requests split
                                               # the actors' (Pong, fast config: 2.3k training
                                               # frames/s at 32, 3.0k at 34; README).
  config.inference.timeout_us = 10_000
  config.inference.jit_compile = False         # XLA's CPU convolutions cost more than oneDNN's:
                                               # this policy's 32-row call took 122 ms of CPU
                                               # under XLA, 28 ms as a TF graph (benchmarks/
                                               # inference_call.py). The price: TensorFlow 2.8
                                               # keeps ~420 B per non-XLA call (README, Long runs).

  config.learner.batch_size = 32
  config.learner.unroll_length = 100
  config.learner.queue_capacity = 64
  config.learner.learning_rate = 0.00048
  config.learner.adam_beta1 = 0.9
  config.learner.adam_beta2 = 0.999
  config.learner.adam_epsilon = 1e-7           # Not 1e-3: the losses are means over time and
                                               # batch, so per-parameter gradients sit near
                                               # 1e-4 and a 1e-3 epsilon shrank Adam's steps
                                               # ~10x (Pong stayed uniform for 5.8M frames).
  config.learner.entropy_cost = 0.01
  config.learner.baseline_cost = 0.5
  config.learner.discount = 0.99
  config.learner.gradient_clip_norm = 40.0
  config.learner.reward_clipping = 'abs_one'
  config.learner.reward_scale = 1.0

  config.logging.interval_seconds = 30.0
  config.logging.eval_return_window = 10       # The evaluator's 2 environments end about 3
                                               # Pong episodes a minute: a window of 100 would
                                               # span a whole 30-minute run.
  config.logging.checkpoint_interval_seconds = 120.0  # Model and optimizer only: cheap, so a
                                                    # short run is not lost (was 600).
  return config
