"""A planned learner restart that bounds its memory: TensorFlow 2.8 keeps about 540
bytes for every training step (per call of a traced function, in its runtime; see
docs/results/speed.md#long-runs), which a run of days cannot afford. Once the learner's
resident memory has grown `logging.memory_restart_percent` over what it was at its
first periodic checkpoint, the learner, at its next checkpoint boundary, saves and exits
with `PLANNED_RESTART_EXIT_CODE`; the supervisor starts it again at once, not counted as
a crash, and it resumes from that checkpoint. The actors reconnect as they do after any
learner restart; nothing trained is lost.
"""

from typing import Callable, Optional

import psutil

# EX_TEMPFAIL: "try again". The supervisor restarts a learner that exits with it at once.
PLANNED_RESTART_EXIT_CODE = 75


def resident_bytes() -> int:
  return psutil.Process().memory_info().rss


class MemoryBound:
  """`check()` at each checkpoint boundary: the first sets the baseline; later ones
  return why a restart is due, or None. `percent` 0: never."""

  def __init__(self, percent: float, read_bytes: Callable[[], int] = resident_bytes):
    self._percent = percent
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
    if growth < self._percent:
      return None
    return (f'resident memory {now / 2**20:.0f} MiB, {growth:.1f}% over its '
            f'{self.baseline / 2**20:.0f} MiB at the first checkpoint '
            f'(logging.memory_restart_percent={self._percent:g})')
