"""V-trace on CartPole-v1: the embedded default, small and fast on a 2-core laptop.

Many environments with short unrolls (32 x 5 steps a batch) give frequent, decorrelated
updates, like A2C; it reaches the 500-step maximum within 500k frames.

Override any key on the command line, e.g. `--config.actors.num=4`.
"""

import ml_collections


def get_config():
  config = ml_collections.ConfigDict()
  config.algorithm = 'vtrace'                  # The program: 'vtrace' or 'r2d2'.
  config.seed = 0                              # Base seed; actor i uses seed + 1000 * (i + 1).
  config.logdir = ''                           # Set by --logdir of launch.local.
  config.total_environment_frames = 500_000    # Stop after this many frames (with frame skip).
  config.onednn = False                        # TensorFlow's oneDNN CPU kernels in every node:
                                               # faster convolutions, no gain for small MLPs.

  config.env = ml_collections.ConfigDict()
  config.env.name = 'cartpole'                 # 'cartpole', 'atari' or 'football'.

  config.network = ml_collections.ConfigDict()
  config.network.torso = 'mlp'                 # 'mlp' for vectors; 'resnet' (SEED's) or 'atari'
                                               # (Nature DQN convolutions) for images.
  config.network.mlp_sizes = (64, 64)          # Hidden layers of the MLP torso.
  config.network.lstm_size = 64                # Width of the recurrent core (LSTM); 0: none,
                                               # a feed-forward agent (stack frames instead).
  config.network.torso_hidden_size = 256       # Dense layer after the convolutions (images).
  config.network.compute_dtype = 'float32'     # Convolution torsos' arithmetic: 'float32' or
                                               # 'bfloat16' (variables stay float32).
  config.network.center_frames = False         # Image torsos: subtract each frame's mean pixel
                                               # (Atari's constant backgrounds drown the
                                               # ball and paddles otherwise).

  config.actors = ml_collections.ConfigDict()
  config.actors.num = 2                        # Actor processes.
  config.actors.env_batch_size = 16            # Environments stepped by each actor.
  config.actors.env_groups = 1                 # Pipelined groups: with 2, an actor steps one half
                                               # of its environments while the learner answers
                                               # the other; worth it when env steps are slow.

  config.evaluators = ml_collections.ConfigDict()
  config.evaluators.num = 1                    # Evaluator processes (0 for none).
  config.evaluators.env_batch_size = 2         # Environments per evaluator.
  config.evaluators.epsilon = 0.0              # Random-action probability; 0 is greedy.

  config.inference = ml_collections.ConfigDict()
  config.inference.batch_size = 64             # Most environments in one inference call.
  config.inference.timeout_us = 2000           # Longest wait for a batch to fill (µs).
  config.inference.jit_compile = True          # Policy as one XLA program (per padded size):
                                               # 6% faster end to end here, and TF 2.8 leaks
                                               # ~420 B per non-XLA tf.function call
                                               # (tensorflow#57982), ~5 MiB/min at this rate.
  config.inference.keepalive_seconds = 10.0    # Both ends of the inference edge ping this
                                               # often; a peer silent twice as long (a host
                                               # gone, a link cut) is dropped.

  config.learner = ml_collections.ConfigDict()
  config.learner.batch_size = 32               # Unrolls per training step.
  config.learner.inference_devices = 0         # Devices serving inference, and devices training
  config.learner.training_devices = 0          # (gradients averaged across them); 0 and 0: one
                                               # device does both, no distribution strategy.
                                               # The training batch must divide evenly.
  config.learner.training_strategy = 'mirrored'  # 'mirrored': split the CPU into that many
                                               # logical devices; 'tpu': the TPU VM's cores
                                               # (inference.jit_compile must be on).
  config.learner.unroll_length = 5             # Agent steps per unroll (unrolls hold one more).
  config.learner.queue_capacity = 64           # Unrolls waiting for training; full blocks inference.
  config.learner.queue_max_bytes = 2 << 30     # Refuse configs whose queue would exceed this.
  config.learner.learning_rate = 2e-3          # Adam step size.
  config.learner.learning_rate_decay = True    # Linear decay to 0 at total_environment_frames.
  config.learner.adam_beta1 = 0.9              # Adam's first-moment decay.
  config.learner.adam_beta2 = 0.999            # Adam's second-moment decay.
  config.learner.adam_epsilon = 1e-7           # Adam's denominator epsilon.
  config.learner.discount = 0.99               # Per agent step.
  config.learner.baseline_cost = 0.5           # Weight of 0.5 * squared V-trace value error.
  config.learner.entropy_cost = 0.003          # Weight of the entropy bonus.
  config.learner.lambda_ = 1.0                 # V-trace lambda.
  config.learner.reward_clipping = 'none'      # 'none', 'abs_one' or 'soft_asymmetric'.
  config.learner.reward_scale = 0.01           # Multiplies rewards after clipping; values and
                                               # advantages are learned in these units. Keeps
                                               # CartPole's values (~100 unscaled) below 1, so
                                               # the costs above set the balance of the loss;
                                               # unscaled, about a third of runs collapsed.
  config.learner.gradient_clip_norm = 1.0      # Global-norm gradient clipping (0 disables); tight
                                               # clipping stops late-training collapses.
  config.learner.clip_rho_threshold = 1.0      # V-trace rho-bar.
  config.learner.clip_pg_rho_threshold = 1.0   # rho-bar of the policy-gradient advantages.

  config.logging = ml_collections.ConfigDict()
  config.logging.interval_seconds = 5.0        # Seconds between metrics.jsonl lines.
  config.logging.return_window = 100           # Training episodes in each mean return.
  config.logging.eval_return_window = 100      # Evaluation episodes in each mean return.
  config.logging.checkpoint_interval_seconds = 120.0  # Between checkpoints; Ctrl-C and
                                                    # SIGTERM also save.
  return config
