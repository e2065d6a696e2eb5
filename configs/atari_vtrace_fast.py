"""V-trace on Atari, sized for speed and sample efficiency on a small CPU machine (2 cores,
no accelerator).

Differs from `atari_vtrace.py` (SEED RL's faithful settings) where it costs CPU time:
the Nature DQN convolutions (32x8x8/4, 64x4x4/2, 64x3x3/1, dense 512: about a sixth of
the ResNet's training cost) instead of SEED's ResNet, no LSTM (a feed-forward agent, as
in Sample Factory's and TorchBeast's Atari setups). And where it costs frames: the last
4 frames stacked on the actors (the ball's motion is in the observation), each frame's
mean pixel subtracted (Pong's constant background otherwise drowns the ball: see
`networks._scaled_frames`), IMPALA's 20-step unrolls in batches of 8 (one update per
160 agent steps: 10x the updates per frame of 100 x 16), and a smaller entropy bonus
(0.001: at 0.01 Pong's policy drifted back to uniform while it could not see the screen).
The README's V-trace results list the Pong runs that led here, and what each measured.
Environment protocol, optimizer, bfloat16 torso arithmetic (it needs a CPU with
AVX512-BF16 to pay: elsewhere set network.compute_dtype=float32) and inference as a TF
graph as there.
"""

from configs import atari_vtrace


def get_config():
  config = atari_vtrace.get_config()
  config.env.frame_stack = 4                   # [84, 84, 4] observations.
  config.network.torso = 'atari'               # Nature DQN convolutions + dense.
  config.network.torso_hidden_size = 512
  config.network.lstm_size = 0                 # Feed-forward: the 4 stacked frames carry motion.
  config.network.center_frames = True          # Subtract each frame's mean pixel.
  config.learner.unroll_length = 20            # Agent steps per unroll (IMPALA's Atari).
  config.learner.batch_size = 8                # Unrolls per training step.
  config.learner.entropy_cost = 0.001          # Weight of the entropy bonus.
  return config
