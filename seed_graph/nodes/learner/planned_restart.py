"""A planned learner restart that bounds its memory: TensorFlow 2.8 keeps about 540
bytes for every training step (per call of a traced function, in its runtime; see
docs/results/speed.md#long-runs), which a run of days cannot afford. Once the learner's
resident memory has grown `logging.memory_restart_percent` over what it was at its
first periodic checkpoint, and by `logging.memory_restart_min_mib` at least, the
learner, at its next checkpoint boundary, saves and exits with
`PLANNED_RESTART_EXIT_CODE`; the supervisor starts it again at once, not counted as a
crash, and it resumes from that checkpoint. The actors reconnect as they do after any
learner restart; nothing trained is lost, and the games in flight go on being counted
(`agent_states.EpisodeStatistics`). The floor in MiB is for the learner's warm-up: the
CleanRL preset's Breakout learner grew 48-82 MiB (5-8%) over its first checkpoint's
850 MiB in its first 15 minutes, then stayed flat (875-876 MiB from minute 13 to 36),
which a percentage alone took for the leak: a restart every 15 minutes, each costing
the learner's start-up.
"""

from typing import Callable, Optional

import psutil

# EX_TEMPFAIL: "try again". The supervisor restarts a learner that exits with it at once.
PLANNED_RESTART_EXIT_CODE = 75


def resident_bytes() -> int:
  return psutil.Process().memory_info().rss


class MemoryBound:
  """`check()` at each checkpoint boundary: the first sets the baseline; later ones
  return why a restart is due (grown `percent` and `min_bytes`), or None. `percent` 0:
  never."""

  def __init__(self, percent: float, min_bytes: int = 0,
               read_bytes: Callable[[], int] = resident_bytes):
    self._percent = percent
    self._min_bytes = min_bytes
    self._read = read_bytes
    self.baseline: Optional[int] = None

  def check(self) -> Optional[str]:
    if self._percent <= 0:
      return None
    now = self._read()
    if self.baseline is None:
      self.baseline = now
      return None
    growth = 100.0 * (now - self.baseline) / self.baseline
    if growth < self._percent or now - self.baseline < self._min_bytes:
      return None
    return (f'resident memory {now / 2**20:.0f} MiB, {growth:.1f}% over its '
            f'{self.baseline / 2**20:.0f} MiB at the first checkpoint '
            f'(logging.memory_restart_percent={self._percent:g}, '
            f'memory_restart_min_mib={self._min_bytes / 2**20:g})')
