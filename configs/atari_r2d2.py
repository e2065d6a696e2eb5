"""R2D2 on Atari with SEED RL's Atari R2D2 settings, sized for this 24 GiB, 2-core machine.

SEED RL's R2D2 Atari defaults kept here: sequences of burn-in 40 + unroll 80 + 1 steps,
5-step double-Q targets, discount 0.997, value rescaling (eps 1e-3), target network
updated every 2500 learner steps, batch 64 sequences, Adam (learning rate 1e-4,
epsilon 1e-3), gradient clipping at global norm 80, priority exponent 0.9, priority mix
eta 0.9, importance-sampling exponent 0.6, Ape-X epsilons 0.4 ** (1 + 7 i / (N - 1)),
evaluation epsilon 0.001, 4 stacked 84x84 grayscale frames (stacked on the learner; actors
send single frames), the Nature-DQN convolutions + dense 512, LSTM 512 and dueling heads
of 512. Environment protocol as `configs/atari_vtrace.py` (sticky actions, frame skip 4).

Replay capacity: 20k sequences here (1.6M steps); see `config.replay.capacity` below for
the measurement and for what a bigger machine should use.
"""

from configs import atari_env
from configs import cartpole_r2d2


def get_config():
  config = cartpole_r2d2.get_config()
  config.total_environment_frames = 200_000_000
  config.onednn = True                         # oneDNN convolutions (a Nature-CNN training step:
                                               # 1.14 s instead of 2.08 s on 2 cores).

  config.env = atari_env.atari_env_config()  # SEED RL's Atari protocol.

  config.network.torso = 'atari'               # 32x8x8/4, 64x4x4/2, 64x3x3/1, dense 512.
  config.network.torso_hidden_size = 512
  config.network.lstm_size = 512
  config.network.head_hidden_size = 512
  config.network.frame_stack = 4

  config.actors.num = 2
  config.actors.env_batch_size = 16
  config.evaluators.num = 1
  config.evaluators.env_batch_size = 2
  config.evaluators.epsilon = 0.001

  config.inference.batch_size = 32
  config.inference.timeout_us = 10_000
  config.inference.jit_compile = False         # XLA's CPU convolutions cost more than oneDNN's
                                               # (a 32-row call: 22 ms of CPU under XLA, 13 ms
                                               # as a TF graph; benchmarks/inference_call.py).

  # Replay memory: a step is stored once, compressed (uint8 84x84 frames), and each
  # sequence adds unroll_length = 80 new steps. Measured with
  # `benchmarks/r2d2_atari_memory.py fill`: 54 KB per sequence on Pong, 67 KB on
  # Seaquest, 79-86 KB on MsPacman; 20k MsPacman sequences (1.6M steps) take 1.5 GiB.
  # The other nodes peaked at 6.9 GiB in a 10-minute run (learner 4.8 GiB), so the whole
  # program stays near 9 GiB resident, under the 12 GiB bound of this 24 GiB machine.
  # A bigger machine (64 GiB or more) should use 100_000 sequences (R2D2's 10^5
  # overlapping sequences, ~8M steps, ~8 GiB of replay at MsPacman's compression).
  config.replay.capacity = 20_000
  config.replay.min_size_to_sample = 500       # Sequences before training starts.
  config.replay.samples_per_insert = 1.0       # Each sequence is sampled about once.
  config.replay.error_buffer = 500.0
  config.replay.priority_exponent = 0.9
  config.replay.chunk_length = 40              # Consecutive sequences share chunks.

  config.learner.batch_size = 64
  config.learner.burn_in = 40
  config.learner.unroll_length = 80
  config.learner.n_step = 5
  config.learner.discount = 0.997
  config.learner.target_update_period = 2500
  config.learner.learning_rate = 1e-4
  config.learner.adam_epsilon = 1e-3
  config.learner.gradient_clip_norm = 80.0
  config.learner.importance_sampling_exponent = 0.6
  config.learner.priority_eta = 0.9
  config.learner.value_rescale_eps = 1e-3

  config.logging.interval_seconds = 30.0
  config.logging.eval_return_window = 10       # The evaluator's 2 environments end about 3
                                               # Pong episodes a minute: a window of 100 would
                                               # span a whole 30-minute run.
  config.logging.checkpoint_interval_seconds = 600.0  # Each saves the replay too (up to
                                                    # ~1.5 GiB); Ctrl-C and SIGTERM save.
  return config
