"""V-trace on Atari sized for speed and sample efficiency on a small CPU machine (2 cores,
no accelerator), on the protocol of the published PongNoFrameskip-v4 runs.

Differs from `atari_vtrace.py` (SEED RL's settings):
- protocol: no sticky actions and the game's own action set (with sticky actions this
  agent rarely reached 0 on Pong in 10M frames: docs/results/pong_10m.md);
- network: the Nature DQN convolutions (a sixth of the ResNet's training cost) with no
  LSTM, the last 4 frames stacked on the actors, each frame's mean pixel subtracted;
- learner: IMPALA's 20-step unrolls in batches of 8 (10x the updates per frame of
  32 x 100) and an entropy bonus of 0.001;
- acting: 3 actor processes of 16 environments, which keep 2 cores busier than 2 did
  (docs/results/speed.md) and learned Pong as well (docs/results/pong_10m.md).

`--config.env.sticky_action_probability=0.25 --config.env.full_action_space=true`
restores SEED's protocol.
"""

from seed_graph.configs import atari_vtrace


def get_config():
  config = atari_vtrace.get_config()
  config.env.frame_stack = 4                  # The ball's motion is in the observation.
  config.env.sticky_action_probability = 0.0
  config.env.full_action_space = False        # The game's own actions (6 for Pong).
  config.network.torso = 'atari'
  config.network.torso_hidden_size = 512
  config.network.lstm_size = 0                # Feed-forward: the stacked frames carry motion.
  config.network.center_frames = True
  config.learner.unroll_length = 20
  config.learner.batch_size = 8
  config.learner.entropy_cost = 0.001         # At 0.01 Pong's policy drifted back to uniform.
  config.actors.num = 3                       # Batches keep inference.batch_size 34 (two
                                              # actors and the evaluator): one of all 50
                                              # rows waits for the slowest actor (0.972x).
  return config
