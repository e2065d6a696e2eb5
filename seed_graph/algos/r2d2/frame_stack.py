"""R2D2's frame stacking on the learner: actors send single frames, replay stores them
once, and the learner stacks the last `env.frame_stack` of them, at inference
(`FrameStacker`, NumPy, per environment) and in training (`stack_frames`, TensorFlow,
over a sampled sequence).

Both follow the rule of every frame stack (`seed_graph.algos.frame_stacking`, which the
NumPy one calls): at an episode's start its first frame fills every slot, so no frame of
the previous episode is seen.
"""

import numpy as np
import tensorflow as tf
from typing import Sequence

from seed_graph.algos import frame_stacking


class FrameStacker:
  """`FrameStacker(num_envs, observation_shape, dtype, stack)(env_ids, frames, starts)`:
  the stacked observation (`[K, ..., stack]`, oldest frame first) of each environment."""

  def __init__(self, num_envs: int, observation_shape: Sequence[int], observation_dtype,
               stack: int):
    self.stack = stack
    if stack > 1:
      self._frames = np.zeros((num_envs,) + tuple(observation_shape) + (stack,),
                              observation_dtype)

  def __call__(self, env_ids: np.ndarray, observations: np.ndarray,
               starts: np.ndarray) -> np.ndarray:
    """`starts`: `[K]` bool, an episode (or a run) starts at this observation."""
    if self.stack == 1:
      return observations
    frames = self._frames[env_ids]
    frame_stacking.push(frames, observations, starts)
    self._frames[env_ids] = frames
    return frames


def stack_frames(frames: tf.Tensor, dones: tf.Tensor, stack: int):
  """Stacks the last `stack` frames on a new last axis.

  Args:
    frames: `[T + stack - 1, B, ...]`, a sequence with `stack - 1` leading frames.
    dones: `[T + stack - 1, B]`; `dones[t]` marks `frames[t]` as an episode's first.
    stack: frames per stacked observation.

  Returns:
    `[T, B, ..., stack]`, oldest frame first; slots from before the episode of the
    stacked step hold that episode's first frame.
  """
  if stack == 1:
    return frames
  length = tf.shape(frames)[0] - (stack - 1)
  episode_index = tf.cumsum(tf.cast(dones, tf.int32), axis=0)  # [T', B]
  current = episode_index[stack - 1:]  # Episode of each output step.
  # Newest slot first: a slot outside the current episode repeats the slot after it,
  # which ends up being the episode's first frame (the frames of one episode are a
  # contiguous run ending at the stacked step).
  parts = [frames[stack - 1:]]
  for j in range(stack - 2, -1, -1):
    same = tf.equal(episode_index[j:j + length], current)
    same = tf.reshape(same, tf.concat([tf.shape(same), tf.ones(
        [tf.rank(frames) - 2], tf.int32)], 0))
    parts.append(tf.where(same, frames[j:j + length], parts[-1]))
  return tf.stack(parts[::-1], axis=-1)
