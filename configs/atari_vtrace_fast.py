"""V-trace on Atari, sized for speed on a small CPU machine (2 cores, no accelerator).

Differs from `atari_vtrace.py` (SEED RL's faithful settings) in what costs CPU time:
the Nature DQN convolutions (32x8x8/4, 64x4x4/2, 64x3x3/1, dense 512: about a sixth of
the ResNet's training cost) instead of SEED's ResNet, and batches of 16 unrolls and 16
inference rows, so one actor's request (16 environments) fills an inference batch
without waiting for the other actor. Environment protocol and optimizer as there.
"""

from configs import atari_vtrace


def get_config():
  config = atari_vtrace.get_config()
  config.network.torso = 'atari'               # Nature DQN convolutions + dense.
  config.network.torso_hidden_size = 512
  config.inference.batch_size = 16             # One actor request (actors.env_batch_size).
  config.learner.batch_size = 16               # Unrolls per training step.
  return config
