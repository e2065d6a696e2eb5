"""The one rule of frame stacking, in NumPy: the actors' (`seed_graph.envs.frame_stack`)
and R2D2's learner's (`seed_graph.algos.r2d2.frame_stack`, whose TensorFlow form for
training sequences follows the same rule)."""

import numpy as np


def push(stacks: np.ndarray, observations: np.ndarray, starts: np.ndarray) -> None:
  """Moves stacks of the last k observations (`[K, ..., k]`, oldest first) on by one step,
  in place: each gets `observations[i]` as its newest, and where `starts[i]` (an episode's
  first observation) that observation fills every slot, so that no frame of the previous
  episode is seen."""
  stacks[..., :-1] = stacks[..., 1:]
  stacks[..., -1] = observations
  stacks[starts] = observations[starts][..., np.newaxis]
