"""Hyperparameters a running learner can change (population-based training, a schedule
of one's own): named scalars held in TensorFlow variables that the traced training step
reads, so a new value takes effect at the next step, without retracing.

An algorithm declares its tunable ones (`Algorithm.hyperparameters`); the learner shell
checkpoints them and serves them on the control edge (`get_hyperparameters`,
`set_hyperparameters`).
"""

import math
from typing import Dict, Mapping

import tensorflow as tf


class Hyperparameters(tf.Module):
  """`Hyperparameters({'learning_rate': 3e-4, ...})`; `h['learning_rate']` is the
  variable a traced function reads."""

  def __init__(self, values: Mapping[str, float]):
    super().__init__(name='hyperparameters')
    self._variables = {
        name: tf.Variable(float(value), trainable=False, dtype=tf.float32, name=name)
        for name, value in values.items()}

  def __getitem__(self, name: str) -> tf.Variable:
    return self._variables[name]

  def names(self):
    return sorted(self._variables)

  def values(self) -> Dict[str, float]:
    return {name: float(v.numpy()) for name, v in sorted(self._variables.items())}

  def update(self, values: Mapping[str, float]) -> Dict[str, float]:
    """Sets some of them (all or none: each value is checked first); returns them all.
    Raises ValueError, one line, for an unknown name or a value that is not a finite
    number >= 0."""
    unknown = sorted(set(values) - set(self._variables))
    if unknown:
      raise ValueError(f'unknown hyperparameter(s) {unknown}; this learner has '
                       f'{self.names() or "none"}')
    checked = {}
    for name, value in values.items():
      if isinstance(value, bool) or not isinstance(value, (int, float)) or (
          not math.isfinite(value) or value < 0):
        raise ValueError(f'hyperparameter {name}={value!r}: not a finite number >= 0')
      checked[name] = float(value)
    for name, value in checked.items():
      self._variables[name].assign(value)
    return self.values()


class ScaledLinearDecay(tf.keras.optimizers.schedules.LearningRateSchedule):
  """A step size read from a variable (so it can be changed while training), times a
  linear decay from 1 at step 0 to 0 at `final_step` (None: no decay)."""

  def __init__(self, learning_rate: tf.Variable, final_step=None):
    super().__init__()
    self._learning_rate = learning_rate
    self._final_step = final_step

  def __call__(self, step):
    rate = tf.convert_to_tensor(self._learning_rate)
    if self._final_step is None:
      return rate
    fraction = 1.0 - tf.cast(step, tf.float32) / float(self._final_step)
    return rate * tf.maximum(fraction, 0.0)

  def get_config(self):
    return {'final_step': self._final_step}
