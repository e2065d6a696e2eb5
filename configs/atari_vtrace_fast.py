"""V-trace on Atari, sized for speed and sample efficiency on a small CPU machine (2 cores,
no accelerator).

Differs from `atari_vtrace.py` (SEED RL's faithful settings) where it costs CPU time:
the Nature DQN convolutions (32x8x8/4, 64x4x4/2, 64x3x3/1, dense 512: about a sixth of
the ResNet's training cost) instead of SEED's ResNet, and inference batches of 16 rows,
so one actor's request (16 environments) fills a batch without waiting for the other
actor. And where it costs frames: the last 4 frames stacked on the actors (the ball's
motion is in the observation, not only in the LSTM's memory), IMPALA's 20-step unrolls
in batches of 8 (one update per 160 agent steps: 10x the updates per frame of 100 x 16;
at 20 x 32 Pong's policy still ignored the screen after 4.8M frames), and a smaller
entropy bonus (0.001: at 0.01 Pong's policy drifted back to uniform). It does not learn
Pong yet (flat at 3.3M frames): see the README's V-trace results for what was tried.
The torso computes in bfloat16 (ratio to env-only 0.233 against 0.207 in float32 here;
it needs a CPU with AVX512-BF16 to pay: elsewhere set network.compute_dtype=float32).
Environment protocol and optimizer as there.
"""

from configs import atari_vtrace


def get_config():
  config = atari_vtrace.get_config()
  config.env.frame_stack = 4                   # [84, 84, 4] observations.
  config.network.torso = 'atari'               # Nature DQN convolutions + dense.
  config.network.torso_hidden_size = 512
  config.network.compute_dtype = 'bfloat16'    # Torso arithmetic; variables stay float32.
  config.inference.batch_size = 16             # One actor request (actors.env_batch_size).
  config.learner.unroll_length = 20            # Agent steps per unroll (IMPALA's Atari).
  config.learner.batch_size = 8                # Unrolls per training step.
  config.learner.entropy_cost = 0.001          # Weight of the entropy bonus.
  return config
