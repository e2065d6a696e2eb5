"""Convolution and dense layers that keep float32 variables but may compute in bfloat16.

On CPUs with AVX512-BF16 (and on TPUs) oneDNN runs bfloat16 convolutions and matmuls
about 1.5x as fast as float32: measured here, the Nature torso's forward and backward
pass over 672 frames took 325-349 ms in bfloat16 against 503-517 ms in float32. The
variables, their gradients and the optimizer stay float32; only the layer's arithmetic
is cast, and its output is returned in the compute dtype for the next layer.

The variables are `w` and `b`, like `snt.Conv2D`'s and `snt.Linear`'s (so checkpoints
written with those modules restore into these), with Sonnet's initialization (truncated
normal with stddev 1/sqrt(fan-in); zero bias) unless `w_init` is given.
"""

from typing import Optional

import numpy as np
import sonnet as snt
import tensorflow as tf

COMPUTE_DTYPES = ('float32', 'bfloat16')


def _fan_in_initializer(shape):
  return snt.initializers.TruncatedNormal(stddev=1.0 / np.sqrt(np.prod(shape[:-1])))


class _CastLayer(snt.Module):
  """Creates `w` (and `b`) on the first call from the input's last dimension."""

  def __init__(self, output_size: int, compute_dtype: str, name: Optional[str],
               w_init: Optional[snt.initializers.Initializer]):
    super().__init__(name=name)
    if compute_dtype not in COMPUTE_DTYPES:
      raise ValueError(f'compute dtype {compute_dtype!r}: expected one of {COMPUTE_DTYPES}')
    self._output_size = output_size
    self._compute_dtype = tf.as_dtype(compute_dtype)
    self._w_init = w_init
    self.w = None
    self.b = None

  def _weight_shape(self, input_size: int):
    raise NotImplementedError

  def _variables(self, inputs: tf.Tensor, w_scale: Optional[float] = None):
    """The inputs, `w` (times `w_scale`, in float32 before the cast) and `b`, created on
    the first call, each cast to the compute dtype."""
    if self.w is None:
      shape = self._weight_shape(int(inputs.shape[-1]))
      w_init = self._w_init or _fan_in_initializer(shape)
      with self.name_scope:
        self.w = tf.Variable(w_init(shape, tf.float32), name='w')
        self.b = tf.Variable(tf.zeros([self._output_size], tf.float32), name='b')
    cast = lambda x: tf.cast(x, self._compute_dtype)
    w = self.w if w_scale is None else self.w * w_scale
    return cast(inputs), cast(w), cast(self.b)


class Conv2D(_CastLayer):
  """`Conv2D(output_channels, kernel_size, stride, padding, compute_dtype, w_init)`,
  NHWC."""

  def __init__(self, output_channels: int, kernel_size: int, stride: int = 1,
               padding: str = 'SAME', compute_dtype: str = 'float32',
               name: Optional[str] = None,
               w_init: Optional[snt.initializers.Initializer] = None):
    super().__init__(output_channels, compute_dtype, name, w_init)
    self._kernel_size = kernel_size
    self._stride = stride
    self._padding = padding

  def _weight_shape(self, input_size: int):
    return (self._kernel_size, self._kernel_size, input_size, self._output_size)

  def __call__(self, inputs: tf.Tensor):
    x, w, b = self._variables(inputs)
    return tf.nn.bias_add(tf.nn.conv2d(x, w, self._stride, self._padding), b)

  def of_affine_inputs(self, inputs: tf.Tensor, scale: float,
                       channel_means: Optional[tf.Tensor] = None):
    """`self((inputs - channel_means) * scale)` ([B, C] means, None: 0), computed as
    `inputs` through weights times `scale`, less each sample's means through the
    kernel's sums: the frames' scaling and centering, two passes over every pixel of
    a first layer's input (5% of the fast Atari config's training step), become
    passes over its weights. Exact with VALID padding only, where every window lies
    inside the input."""
    if self._padding != 'VALID':
      raise ValueError(f'of_affine_inputs needs VALID padding, not {self._padding!r}')
    x, w, b = self._variables(inputs, w_scale=scale)
    outputs = tf.nn.bias_add(tf.nn.conv2d(x, w, self._stride, 'VALID'), b)
    if channel_means is None:
      return outputs
    # Each window covers every kernel tap, so a channel's constant shifts every output by
    # that constant times the sum of its kernel's taps.
    shifts = tf.matmul(tf.cast(channel_means, self._compute_dtype),
                       tf.reduce_sum(w, axis=[0, 1]))
    return outputs - shifts[:, tf.newaxis, tf.newaxis, :]


class Linear(_CastLayer):
  """`Linear(output_size, compute_dtype, w_init)` on `[B, N]` inputs."""

  def __init__(self, output_size: int, compute_dtype: str = 'float32',
               name: Optional[str] = None,
               w_init: Optional[snt.initializers.Initializer] = None):
    super().__init__(output_size, compute_dtype, name, w_init)

  def _weight_shape(self, input_size: int):
    return (input_size, self._output_size)

  def __call__(self, inputs: tf.Tensor):
    x, w, b = self._variables(inputs)
    return tf.matmul(x, w) + b
