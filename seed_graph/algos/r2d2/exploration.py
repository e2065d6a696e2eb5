"""R2D2's exploration: the Ape-X schedule of per-environment epsilons."""

import numpy as np


def training_epsilons(num_envs: int, base=0.4, alpha=7.0) -> np.ndarray:
  """Ape-X: environment i explores with base ** (1 + alpha * i / (N - 1))."""
  if num_envs == 1:
    return np.array([base], np.float32)
  i = np.arange(num_envs, dtype=np.float64)
  return (base ** (1.0 + alpha * i / (num_envs - 1))).astype(np.float32)
