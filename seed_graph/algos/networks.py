"""Sonnet 2 building blocks every algorithm's network shares: the torsos that turn an
observation into features, their initializations, and the `network` config keys they
read. The recurrent core and the agent around it are `seed_graph.algos.recurrent`.
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
