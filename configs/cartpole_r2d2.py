"""R2D2 on CartPole-v1: small and fast on a 2-core laptop (learns within 1M frames).

Run: `python -m launch.local --config=configs/cartpole_r2d2.py --logdir=logs/cartpole_r2d2`.
Override any key on the command line, e.g. `--config.replay.capacity=5000`.
"""

import ml_collections


def get_config():
  config = ml_collections.ConfigDict()
  config.algorithm = 'r2d2'                    # The program: 'vtrace' or 'r2d2'.
  config.seed = 0                              # Base seed; actor i uses seed + 1000 * (i + 1).
  config.logdir = ''                           # Set by --logdir of launch.local.
  config.total_environment_frames = 1_000_000  # Stop after this many frames (with frame skip).
  config.onednn = False                        # TensorFlow's oneDNN CPU kernels in every node:
                                               # faster convolutions, no gain for small MLPs.

  config.env = ml_collections.ConfigDict()
  config.env.name = 'cartpole'                 # 'cartpole', 'atari' or 'football'.

  config.network = ml_collections.ConfigDict()
  config.network.torso = 'mlp'                 # 'mlp' for vectors, 'atari' for images.
  config.network.mlp_sizes = (64, 64)          # Hidden layers of the MLP torso.
  config.network.torso_hidden_size = 512       # Dense layer after the convolutions (atari).
  config.network.lstm_size = 64                # Width of the recurrent core (LSTM); 0: none,
                                               # a feed-forward agent (stack frames instead).
  config.network.head_hidden_size = 64         # Hidden layer of each dueling stream.
  config.network.frame_stack = 1               # Frames stacked on the learner (1: none).
  config.network.compute_dtype = 'float32'     # Convolution torso's arithmetic: 'float32' or
                                               # 'bfloat16' (variables stay float32).
  config.network.center_frames = False         # Image torsos: subtract each frame's mean pixel
                                               # (Atari's constant backgrounds drown the
                                               # ball and paddles otherwise).

  config.actors = ml_collections.ConfigDict()
  config.actors.num = 2                        # Actor processes.
  config.actors.env_batch_size = 8             # Environments stepped by each actor.
  config.actors.env_groups = 1                 # Pipelined groups: with 2, an actor steps one half
                                               # of its environments while the learner answers
                                               # the other; worth it when env steps are slow.

  config.exploration = ml_collections.ConfigDict()
  config.exploration.base = 0.4                # Ape-X: env i of N uses base ** (1 + alpha i / (N - 1)).
  config.exploration.alpha = 7.0               # Spread of those epsilons (Ape-X's 7).

  config.evaluators = ml_collections.ConfigDict()
  config.evaluators.num = 1                    # Evaluator processes (0 for none).
  config.evaluators.env_batch_size = 2         # Environments per evaluator.
  config.evaluators.epsilon = 0.001            # Evaluation epsilon; never written to replay.

  config.inference = ml_collections.ConfigDict()
  config.inference.batch_size = 32             # Most environments in one inference call.
  config.inference.timeout_us = 2000           # Longest wait for a batch to fill (µs).
  config.inference.jit_compile = True          # Policy as one XLA program (per padded size):
                                               # 6% faster end to end here, and TF 2.8 leaks
                                               # ~420 B per non-XLA tf.function call
                                               # (tensorflow#57982), ~5 MiB/min at this rate.
  config.inference.keepalive_seconds = 10.0    # Both ends of the inference edge ping this
                                               # often; a peer silent twice as long (a host
                                               # gone, a link cut) is dropped.

  config.replay = ml_collections.ConfigDict()
  config.replay.capacity = 4000                # Sequences kept (FIFO eviction when full).
  config.replay.min_size_to_sample = 64        # Training waits until this many sequences.
  config.replay.samples_per_insert = 8.0       # Rate limiter: sampled sequences per insert.
  config.replay.error_buffer = 256.0           # Rate limiter slack (in samples) before blocking.
  config.replay.priority_exponent = 0.9        # Sampling probability ~ priority ** this.
  config.replay.chunk_length = 10              # Steps per compressed chunk (shared by sequences).

  config.learner = ml_collections.ConfigDict()
  config.learner.batch_size = 32               # Sequences per training step.
  config.learner.inference_devices = 0         # Devices serving inference, and devices training
  config.learner.training_devices = 0          # (gradients averaged across them); 0 and 0: one
                                               # device does both, no distribution strategy.
                                               # The training batch must divide evenly.
  config.learner.training_strategy = 'mirrored'  # 'mirrored': split the CPU into that many
                                               # logical devices; 'tpu': the TPU VM's cores
                                               # (inference.jit_compile must be on).
  config.learner.burn_in = 10                  # Steps that only warm up the LSTM (no gradient).
  config.learner.unroll_length = 20            # Trained steps; sequences hold burn_in + this + 1.
  config.learner.n_step = 5                    # n of the n-step double-Q targets.
  config.learner.discount = 0.99               # Per agent step.
  config.learner.target_update_period = 200    # Learner steps between target-network copies.
  config.learner.learning_rate = 1e-3          # Adam step size.
  config.learner.adam_epsilon = 1e-3           # Adam's denominator epsilon.
  config.learner.gradient_clip_norm = 40.0     # Global-norm gradient clipping; 0 disables.
  config.learner.importance_sampling_exponent = 0.6  # Prioritized replay's beta.
  config.learner.priority_eta = 0.9            # priority = eta * max|td| + (1 - eta) * mean|td|.
  config.learner.value_rescale_eps = 1e-3      # eps of h(x) = sign(x)(sqrt(|x|+1)-1) + eps x.

  config.logging = ml_collections.ConfigDict()
  config.logging.interval_seconds = 5.0        # Seconds between metrics.jsonl lines.
  config.logging.return_window = 100           # Training episodes in each mean return.
  config.logging.eval_return_window = 100      # Evaluation episodes in each mean return.
  config.logging.checkpoint_interval_seconds = 120.0  # Model and replay checkpoints.
  return config
