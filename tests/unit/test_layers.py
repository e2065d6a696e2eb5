"""Layers that keep float32 variables and may compute in bfloat16 (`algos.layers`)."""

import os
import subprocess
import sys

import numpy as np
import pytest
import sonnet as snt
import tensorflow as tf

from seed_graph.algos import layers
from seed_graph.algos import networks
from seed_graph.algos import precision
from seed_graph.launch.runs import tensorflow_environment


def _frames(batch=6, channels=4):
  return tf.constant(np.random.default_rng(0).integers(0, 255, (batch, 84, 84, channels)),
                     tf.uint8)


class _SonnetAtariTorso(snt.Module):
  """The Nature torso as it was built from Sonnet's own modules (before `layers`)."""

  def __init__(self):
    super().__init__(name='atari_torso')
    self._convs = [snt.Conv2D(32, 8, stride=4, padding='VALID'),
                   snt.Conv2D(64, 4, stride=2, padding='VALID'),
                   snt.Conv2D(64, 3, stride=1, padding='VALID')]
    self._linear = snt.Linear(512)

  def __call__(self, observations):
    x = tf.cast(observations, tf.float32) / 255.0
    for conv in self._convs:
      x = tf.nn.relu(conv(x))
    return tf.nn.relu(self._linear(snt.Flatten()(x)))


def test_a_checkpoint_of_sonnet_modules_restores_into_these_layers(tmp_path):
  frames = _frames()
  old = _SonnetAtariTorso()
  expected = old(frames)
  path = tf.train.Checkpoint(torso=old).write(str(tmp_path / 'old'))
  new = networks.AtariTorso(hidden_size=512)
  new(frames)  # Creates the variables.
  tf.train.Checkpoint(torso=new).read(path).assert_consumed()
  np.testing.assert_allclose(new(frames).numpy(), expected.numpy(), rtol=1e-5, atol=1e-5)


# bfloat16 convolutions need oneDNN, which TensorFlow reads from the environment at
# import: this part runs in a child process with it on, as every node process runs.
_BFLOAT16_CHECK = """
import numpy as np, tensorflow as tf
from seed_graph.algos import networks
from seed_graph.algos import precision
frames = tf.constant(np.random.default_rng(0).integers(0, 255, (6, 84, 84, 4)), tf.uint8)
for torso_class in (networks.AtariTorso, networks.ResNetTorso):
  exact, fast = torso_class(compute_dtype='float32'), torso_class(compute_dtype='bfloat16')
  exact(frames)
  fast(frames)
  for source, target in zip(exact.trainable_variables, fast.trainable_variables):
    target.assign(source)
  with tf.GradientTape() as tape:
    features = fast(frames)
    loss = tf.reduce_mean(tf.square(features))
  gradients = tape.gradient(loss, fast.trainable_variables)
  assert features.dtype == tf.float32
  assert all(v.dtype == tf.float32 for v in fast.trainable_variables)
  assert all(g.dtype == tf.float32 and np.isfinite(g.numpy()).all() for g in gradients)
  reference = exact(frames).numpy()
  # bfloat16 keeps 8 significant bits: features agree to a few percent of their scale.
  error = np.abs(features.numpy() - reference).max()
  assert 0 < error < 0.05 * np.abs(reference).max(), (torso_class.__name__, error)
print('ok')
"""


def test_bfloat16_keeps_float32_variables_and_close_outputs_where_the_cpu_can():
  result = subprocess.run([sys.executable, '-c', _BFLOAT16_CHECK], capture_output=True,
                          text=True, timeout=300,
                          env=dict(os.environ, **tensorflow_environment.variables(True)))
  if precision.cpu_bfloat16_problem(precision.cpu_flags()):
    # This CPU cannot (launch.local refuses an explicit bfloat16 here): TensorFlow must
    # agree, or the rule in precision.py is wrong.
    assert 'oneDNN BFloat16 support are only on platforms with AVX512' in result.stderr
    assert result.returncode != 0 and not result.stdout.strip().endswith('ok')
    return
  assert result.stdout.strip().endswith('ok'), result.stderr[-3000:]


def test_an_unknown_compute_dtype_is_refused():
  with pytest.raises(ValueError, match='float16'):
    layers.Conv2D(8, 3, compute_dtype='float16')


def _unfolded(torso, frames, center):
  """The Nature torso with the frames scaled (and centered) before the first layer."""
  x = networks._scaled_frames(frames, 'float32', center)  # pylint: disable=protected-access
  for conv in torso._convs:  # pylint: disable=protected-access
    x = tf.nn.relu(conv(x))
  return tf.nn.relu(torso._linear(snt.Flatten()(x)))  # pylint: disable=protected-access


@pytest.mark.parametrize('center', [False, True])
def test_the_first_layer_folds_the_frames_scaling_and_centering_exactly(center):
  frames = _frames()
  torso = networks.AtariTorso(hidden_size=64, center_frames=center)
  with tf.GradientTape(persistent=True) as tape:
    folded = torso(frames)
    unfolded = _unfolded(torso, frames, center)
    losses = [tf.reduce_sum(tf.square(f)) for f in (folded, unfolded)]
  np.testing.assert_allclose(folded.numpy(), unfolded.numpy(), rtol=1e-4, atol=1e-5)
  assert np.abs(folded.numpy()).max() > 0.01  # Not all ReLU'd away.
  # The outputs above catch a wrong fold (a scale of 1/256 moves them 0.4%); the
  # gradients show every weight still learns through it, compared as whole tensors: the
  # two float32 orders of summation may put a unit on a ReLU's kink on different sides,
  # which moved one element of a bias gradient 0.5% (relative norm ~6e-4) on one CPU kind.
  for a, b in zip(*(tape.gradient(loss, torso.trainable_variables) for loss in losses)):
    assert np.linalg.norm(a.numpy() - b.numpy()) <= 1e-2 * np.linalg.norm(b.numpy())


def test_only_valid_padding_folds_affine_inputs():
  conv = layers.Conv2D(8, 3, padding='SAME')
  with pytest.raises(ValueError, match='VALID'):
    conv.of_affine_inputs(tf.zeros([1, 8, 8, 2]), 0.5)
