"""One optimizer step from a gradient tape, as both learners take it."""

import tensorflow as tf


def apply_clipped_gradients(optimizer, tape: tf.GradientTape, loss, variables,
                            clip_norm: float):
  """Applies the gradients of `loss`, clipped to global norm `clip_norm` (0: no
  clipping); returns their global norm before clipping."""
  gradients = tape.gradient(loss, variables)
  gradient_norm = tf.linalg.global_norm(gradients)
  if clip_norm > 0:
    gradients, _ = tf.clip_by_global_norm(gradients, clip_norm, use_norm=gradient_norm)
  optimizer.apply_gradients(zip(gradients, variables))
  return gradient_norm
