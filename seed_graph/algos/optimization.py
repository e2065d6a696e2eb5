"""One optimizer step from gradients, as both learners take it."""

import tensorflow as tf


def apply_if_finite(gradients, loss, clip_norm: float, apply):
  """Calls `apply(gradients)` with the gradients clipped to global norm `clip_norm` (0:
  no clipping), if the loss and the gradients are finite.

  Returns:
    (the gradients' global norm before clipping, whether they were applied). A skipped
    update leaves the variables and the optimizer's state (its step count too) as they
    were: one bad batch costs that batch, not the run.
  """
  gradient_norm = tf.linalg.global_norm(gradients)
  if clip_norm > 0:
    gradients, _ = tf.clip_by_global_norm(gradients, clip_norm, use_norm=gradient_norm)

  def apply_and_report():
    apply(gradients)
    return tf.constant(True)

  finite = tf.math.is_finite(gradient_norm) & tf.reduce_all(tf.math.is_finite(loss))
  applied = tf.cond(finite, apply_and_report, lambda: tf.constant(False))
  return gradient_norm, applied
