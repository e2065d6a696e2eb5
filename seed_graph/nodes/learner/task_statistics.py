"""Episode returns per task, for a learner that trains on several (one learner, many
environments that share observation and action spaces, as in IMPALA's and SEED's
DMLab-30): the program names each task's environment ids, and the learner's metrics, the
status line and `get_stats` get `episode_return/<task>`, `eval_episode_return/<task>`
and `episodes/<task>` beside the overall figures."""

import collections
import threading
from typing import Dict, Mapping, Optional, Sequence

import numpy as np


class TaskStatistics:
  """`TaskStatistics({task: env ids}, num_training_envs, window, eval_window)`; `add`
  takes the episodes the learner's `EpisodeStatistics.update` ended."""

  def __init__(self, tasks: Mapping[str, Sequence[int]], num_envs: int,
               num_training_envs: int, window: int, eval_window: Optional[int] = None):
    self._names = list(tasks)
    self._task_of_env = np.full(num_envs, -1, np.int32)
    for index, (name, env_ids) in enumerate(tasks.items()):
      ids = np.asarray(list(env_ids), np.int64)
      if ids.size and (ids.min() < 0 or ids.max() >= num_envs):
        raise ValueError(f'task {name!r}: environment ids outside [0, {num_envs})')
      if (self._task_of_env[ids] >= 0).any():
        raise ValueError(f'task {name!r}: environment ids given to two tasks')
      self._task_of_env[ids] = index
    self._num_training_envs = num_training_envs
    self._windows = {(task, kind): collections.deque(
        maxlen=window if kind == 'train' else (eval_window or window))
        for task in self._names for kind in ('train', 'eval')}
    self._episodes = collections.Counter()
    self._lock = threading.Lock()

  def add(self, env_ids: np.ndarray, returns: np.ndarray) -> None:
    """Finished episodes: their environments' ids and whole-game returns."""
    if not len(env_ids):
      return
    tasks = self._task_of_env[env_ids]
    with self._lock:
      for env_id, task, value in zip(env_ids.tolist(), tasks.tolist(), returns.tolist()):
        if task < 0:
          continue  # An environment of no task.
        kind = 'train' if env_id < self._num_training_envs else 'eval'
        self._windows[(self._names[task], kind)].append(value)
        self._episodes[self._names[task]] += kind == 'train'

  def snapshot(self) -> Dict[str, Optional[float]]:
    with self._lock:
      stats = {}
      for task in self._names:
        train, evaluation = self._windows[(task, 'train')], self._windows[(task, 'eval')]
        stats[f'episode_return/{task}'] = float(np.mean(train)) if train else None
        if evaluation:
          stats[f'eval_episode_return/{task}'] = float(np.mean(evaluation))
        stats[f'episodes/{task}'] = self._episodes[task]
      return stats
