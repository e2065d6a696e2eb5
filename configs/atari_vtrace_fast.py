"""V-trace on Atari, sized for speed and sample efficiency on a small CPU machine (2 cores,
no accelerator).

Differs from `atari_vtrace.py` (SEED RL's faithful settings) where it costs CPU time:
the Nature DQN convolutions (32x8x8/4, 64x4x4/2, 64x3x3/1, dense 512: about a sixth of
the ResNet's training cost) instead of SEED's ResNet, no LSTM (a feed-forward agent, as
in Sample Factory's and TorchBeast's Atari setups). And where it costs frames: the
environment protocol of the published IMPALA and Sample Factory Pong runs
(`PongNoFrameskip-v4`: no sticky actions, the game's own action set; with SEED's sticky
actions this agent missed the 10M-frame target in 5 of 6 runs: README, Pong runs), the
last 4 frames stacked on the actors (the ball's motion is in the observation), each
frame's mean pixel subtracted (Pong's constant background otherwise drowns the ball: see
`networks._scaled_frames`), IMPALA's 20-step unrolls in batches of 8 (one update per
160 agent steps: 10x the updates per frame of 100 x 16), and a smaller entropy bonus
(0.001: at 0.01 Pong's policy drifted back to uniform while it could not see the screen).
The README's V-trace results list the Pong runs that led here, and what each measured.
The rest of the environment protocol (frame skip 4 with max-pooling, 84x84 gray, no-op
starts, the episode cap), optimizer, bfloat16 torso arithmetic (it needs a CPU with
AVX512-BF16 to pay: elsewhere set network.compute_dtype=float32) and inference as a TF
graph as there. `--config.env.sticky_action_probability=0.25
--config.env.full_action_space=true` restores SEED's protocol.
"""

from configs import atari_vtrace


def get_config():
  config = atari_vtrace.get_config()
  config.env.frame_stack = 4                   # [84, 84, 4] observations.
  config.env.sticky_action_probability = 0.0   # Each action is the one the policy chose.
  config.env.full_action_space = False         # The game's own actions (6 for Pong).
  config.network.torso = 'atari'               # Nature DQN convolutions + dense.
  config.network.torso_hidden_size = 512
  config.network.lstm_size = 0                 # Feed-forward: the 4 stacked frames carry motion.
  config.network.center_frames = True          # Subtract each frame's mean pixel.
  config.learner.unroll_length = 20            # Agent steps per unroll (IMPALA's Atari).
  config.learner.batch_size = 8                # Unrolls per training step.
  config.learner.entropy_cost = 0.001          # Weight of the entropy bonus.
  return config
