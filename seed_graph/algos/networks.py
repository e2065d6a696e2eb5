"""Sonnet 2 building blocks every algorithm's network shares: torsos and a recurrent core.

An agent sees, at every step, the observation, the previous action (one-hot) and the
previous reward, as in SEED RL. Its recurrent state is reset to zero wherever `done`
is set: the observation at such a step is the first of a new episode.
"""

import math
from typing import Any, Optional, Sequence

import sonnet as snt
import tensorflow as tf
import ml_collections

from seed_graph.config import schema as config_schema
from seed_graph.algos import layers
from seed_graph.algos import precision


INITIALIZATIONS = ('fan_in', 'orthogonal')
RELU_GAIN = math.sqrt(2.0)  # Keeps activations' scale through ReLU layers (He et al.).


def weight_init(initialization: str, gain: float) -> Optional[snt.initializers.Initializer]:
  """A layer's weight initializer: None for Sonnet's own (`'fan_in'`: truncated normal,
  stddev 1/sqrt(fan-in); `gain` unused), or orthogonal scaled by `gain`."""
  if initialization == 'fan_in':
    return None
  if initialization == 'orthogonal':
    return snt.initializers.Orthogonal(gain=gain)
  raise ValueError(f'initialization {initialization!r}: expected one of {INITIALIZATIONS}')


class MLPTorso(snt.Module):
  """Fully connected torso for vector observations."""

  def __init__(self, hidden_sizes: Sequence[int], w_init: Optional[Any] = None,
               name='mlp_torso'):
    super().__init__(name=name)
    self._mlp = snt.nets.MLP(list(hidden_sizes), w_init=w_init, activate_final=True)

  def __call__(self, observations: tf.Tensor):
    observations = tf.cast(observations, tf.float32)
    flat = tf.reshape(observations, [tf.shape(observations)[0], -1])
    return self._mlp(flat)


class _ResidualBlock(snt.Module):

  def __init__(self, channels: int, compute_dtype: str = 'float32',
               w_init: Optional[Any] = None, name=None):
    super().__init__(name=name)
    self._conv_a = layers.Conv2D(channels, 3, compute_dtype=compute_dtype, w_init=w_init,
                                 name='conv_a')
    self._conv_b = layers.Conv2D(channels, 3, compute_dtype=compute_dtype, w_init=w_init,
                                 name='conv_b')

  def __call__(self, x: tf.Tensor):
    residual = self._conv_b(tf.nn.relu(self._conv_a(tf.nn.relu(x))))
    return x + residual


def _pixel_values(observations: tf.Tensor) -> tf.Tensor:
  """uint8 pixels as float32 `[B, H, W, C]`, 0-255."""
  pixels = tf.cast(observations, tf.float32)
  if pixels.shape.rank == 3:  # [B, H, W] grayscale without a channel axis.
    pixels = pixels[..., tf.newaxis]
  return pixels


def _scaled_frames(observations: tf.Tensor, compute_dtype: str, center: bool = False):
  """uint8 pixels as `[B, H, W, C]` in [0, 1], in the torso's compute dtype.

  With `center`, each frame's mean pixel is subtracted (per channel): Atari screens are
  mostly a constant background, so uncentered inputs give every first-layer unit one
  large, shared input that its gradients all push the same way (measured in
  docs/results/pong_10m.md, "Why the fast config is what it is").
  """
  x = _pixel_values(observations) / 255.0
  if center:
    x -= tf.reduce_mean(x, axis=[1, 2], keepdims=True)
  return tf.cast(x, compute_dtype)


class ResNetTorso(snt.Module):
  """SEED RL's deep torso for images: three conv stacks (16, 32, 32), then dense 256.

  Each stack is a 3x3 convolution, a 3x3 max-pool of stride 2 and two residual blocks.
  uint8 pixels are scaled to [0, 1] here, so actors and replay keep them as bytes. The
  arithmetic runs in `compute_dtype` (see `layers`); the features come out float32.
  """

  def __init__(self, channels: int = (16, 32, 32), hidden_size: int = 256,
               compute_dtype: str = 'float32', center_frames: bool = False,
               w_init: Optional[Any] = None, name='resnet_torso'):
    super().__init__(name=name)
    self._compute_dtype = compute_dtype
    self._center_frames = center_frames
    self._stacks = []
    for index, num_channels in enumerate(channels):
      self._stacks.append((
          layers.Conv2D(num_channels, 3, compute_dtype=compute_dtype, w_init=w_init,
                        name=f'conv_{index}'),
          _ResidualBlock(num_channels, compute_dtype, w_init, name=f'residual_{index}_a'),
          _ResidualBlock(num_channels, compute_dtype, w_init, name=f'residual_{index}_b'),
      ))
    self._linear = layers.Linear(hidden_size, compute_dtype=compute_dtype, w_init=w_init,
                                 name='linear')

  def __call__(self, observations: tf.Tensor):
    x = _scaled_frames(observations, self._compute_dtype, self._center_frames)
    for conv, block_a, block_b in self._stacks:
      x = conv(x)
      x = tf.nn.pool(x, window_shape=[3, 3], pooling_type='MAX', padding='SAME',
                     strides=[2, 2])
      x = block_b(block_a(x))
    x = tf.nn.relu(x)
    x = snt.Flatten()(x)
    return tf.cast(tf.nn.relu(self._linear(x)), tf.float32)


class AtariTorso(snt.Module):
  """The Nature DQN convolutions (SEED RL's R2D2 torso; Sample Factory's Atari one):
  32x8x8/4, 64x4x4/2, 64x3x3/1 (VALID padding, ReLU), then a dense layer (512). About
  a sixth of the ResNet's training cost on a CPU. uint8 pixels are scaled to [0, 1]; the
  arithmetic runs in `compute_dtype` (see `layers`); the features come out float32."""

  def __init__(self, hidden_size: int = 512, compute_dtype: str = 'float32',
               center_frames: bool = False, w_init: Optional[Any] = None,
               name='atari_torso'):
    super().__init__(name=name)
    self._compute_dtype = compute_dtype
    self._center_frames = center_frames
    self._convs = [
        layers.Conv2D(channels, kernel, stride=stride, padding='VALID',
                      compute_dtype=compute_dtype, w_init=w_init, name=f'conv_{index}')
        for index, (channels, kernel, stride) in enumerate([(32, 8, 4), (64, 4, 2),
                                                           (64, 3, 1)])
    ]
    self._linear = layers.Linear(hidden_size, compute_dtype=compute_dtype, w_init=w_init,
                                 name='dense')

  def __call__(self, observations: tf.Tensor):
    # As `_scaled_frames` would give the first layer, with its scaling and centering
    # folded into that layer's weights (`layers.Conv2D.of_affine_inputs`): without the
    # two passes over every pixel, the fast config's training batch takes 0.88-0.90 of
    # its time and an inference call 0.80 (docs/results/speed.md#the-training-step-alone).
    pixels = _pixel_values(observations)
    means = tf.reduce_mean(pixels, axis=[1, 2]) if self._center_frames else None
    x = tf.nn.relu(self._convs[0].of_affine_inputs(pixels, 1 / 255.0, means))
    for conv in self._convs[1:]:
      x = tf.nn.relu(conv(x))
    x = snt.Flatten()(x)
    return tf.cast(tf.nn.relu(self._linear(x)), tf.float32)


class NoMemory(snt.RNNCore):
  """A core that passes its input through: a feed-forward agent (`lstm_size=0`).

  Its state is one zero per environment, so the learner's per-environment state table,
  the unrolls and the checkpoints keep one shape for every agent.
  """

  def __call__(self, inputs: tf.Tensor, prev_state: Any):
    return inputs, prev_state

  def initial_state(self, batch_size: int):
    return tf.zeros([batch_size, 1])


class RecurrentCore(snt.Module):
  """torso(observation) ++ one-hot(previous action) ++ clipped previous reward -> LSTM.

  The state is reset to zero wherever `done` is set. Shared by the actor-critic agent
  and the R2D2 Q network, which differ only in their heads. With `lstm_size=0` the LSTM
  is `NoMemory`: the agent sees only the current (possibly frame-stacked) observation.
  """

  def __init__(self, num_actions: int, torso: snt.Module, lstm_size: int,
               name='recurrent_core'):
    super().__init__(name=name)
    self._num_actions = num_actions
    self._torso = torso
    self._lstm = snt.LSTM(lstm_size) if lstm_size else NoMemory()

  def initial_state(self, batch_size: int):
    return self._lstm.initial_state(batch_size)

  @property
  def torso(self) -> snt.Module:
    return self._torso

  def _embed(self, prev_actions: tf.Tensor, rewards: tf.Tensor, observations: tf.Tensor):
    features = self._torso(observations)
    one_hot_actions = tf.one_hot(prev_actions, self._num_actions)
    clipped_rewards = tf.clip_by_value(tf.cast(rewards, tf.float32), -1.0, 1.0)
    return tf.concat([features, one_hot_actions, clipped_rewards[:, tf.newaxis]], axis=-1)

  @staticmethod
  def _reset_where_done(core_state: Any, dones: tf.Tensor):
    keep = 1.0 - tf.cast(dones, tf.float32)[:, tf.newaxis]
    return tf.nest.map_structure(lambda s: s * keep, core_state)

  def step(self, prev_actions: tf.Tensor, rewards: tf.Tensor, dones: tf.Tensor,
           observations: tf.Tensor, core_state: Any):
    """One step for `[B]` environments: (outputs `[B, H]`, new state)."""
    embedding = self._embed(prev_actions, rewards, observations)
    return self._lstm(embedding, self._reset_where_done(core_state, dones))

  def unroll(self, prev_actions: tf.Tensor, rewards: tf.Tensor, dones: tf.Tensor,
             observations: tf.Tensor, core_state: Any):
    """Time-major unroll of `[T, B]` inputs from `core_state` (the state before step 0).

    Returns (outputs `[T * B, H]`, time-major rows, final state).
    """
    num_steps, batch_size = tf.shape(prev_actions)[0], tf.shape(prev_actions)[1]
    flat = lambda x: tf.reshape(x, tf.concat([[num_steps * batch_size], tf.shape(x)[2:]], 0))
    # The torso runs once over all T * B observations.
    embeddings = self._embed(flat(prev_actions), flat(rewards), flat(observations))
    embeddings = tf.reshape(
        embeddings, tf.concat([[num_steps, batch_size], tf.shape(embeddings)[1:]], 0))
    # The unroll length is static inside the learners' tf.functions, so a Python loop
    # builds a fixed graph; the reset mask keeps episodes inside an unroll apart.
    outputs = []
    for t in range(prev_actions.shape[0]):
      output, core_state = self._lstm(embeddings[t],
                                      self._reset_where_done(core_state, dones[t]))
      outputs.append(output)
    return tf.concat(outputs, axis=0), core_state


def unflatten_time(x: tf.Tensor, num_steps: int, batch_size: int):
  """`[T * B, ...]` -> `[T, B, ...]`."""
  return tf.reshape(x, tf.concat([[num_steps, batch_size], tf.shape(x)[1:]], 0))


TORSOS = ('mlp', 'resnet', 'atari')

# The `network` section's keys every algorithm's network has.
NETWORK_KEYS = {
    'torso': config_schema.Key(
        'mlp', "'mlp' for vectors; for images 'resnet' (SEED's deep torso) or 'atari' "
        '(the Nature DQN convolutions).', config_schema.one_of(*TORSOS), fixed=True),
    'mlp_sizes': config_schema.Key((64, 64), 'Hidden layers of the MLP torso.',
                                   config_schema.positive_ints, fixed=True),
    'lstm_size': config_schema.Key(
        64, 'Width of the recurrent core (LSTM); 0: none, a feed-forward agent (stack '
        'frames instead: env.frame_stack).', config_schema.non_negative, fixed=True),
    'torso_hidden_size': config_schema.Key(
        256, 'Dense layer after the convolutions (image torsos).', config_schema.positive,
        fixed=True),
    'compute_dtype': config_schema.Key(
        precision.AUTO, "Convolution torsos' arithmetic: 'float32', 'bfloat16' (needs "
        "onednn and an AVX-512 CPU) or 'auto', the faster of the two on this machine's CPU "
        '(seed_graph/algos/precision.py; --print_config says which). Variables stay '
        'float32 either way.', config_schema.one_of(*layers.COMPUTE_DTYPES, precision.AUTO)),
    'center_frames': config_schema.Key(
        False, "Image torsos: subtract each frame's mean pixel (Atari's constant "
        'backgrounds otherwise drown the ball and paddles).', fixed=True),
    'initialization': config_schema.Key(
        'fan_in', "Weights at creation: 'fan_in', Sonnet's (truncated normal, stddev "
        "1/sqrt(fan-in)); 'orthogonal', CleanRL's PPO's: orthogonal, gain sqrt(2) in the "
        "torso, 0.01 on the policy head, 1 on the value head (R2D2's heads keep Sonnet's).",
        config_schema.one_of(*INITIALIZATIONS)),
}


def make_torso(network_config: ml_collections.ConfigDict) -> snt.Module:
  """The torso named by `network_config.torso` (one of TORSOS)."""
  w_init = weight_init(network_config.initialization, RELU_GAIN)
  if network_config.torso == 'mlp':
    return MLPTorso(network_config.mlp_sizes, w_init=w_init)
  image_options = dict(hidden_size=network_config.torso_hidden_size,
                       compute_dtype=precision.resolve(network_config)[0],
                       center_frames=network_config.center_frames, w_init=w_init)
  if network_config.torso == 'resnet':
    return ResNetTorso(**image_options)
  if network_config.torso == 'atari':
    return AtariTorso(**image_options)
  raise ValueError(f'network.torso={network_config.torso!r}: expected one of {TORSOS}')
