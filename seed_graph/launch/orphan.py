"""When a host without the learner stops by itself (`launch.host`): once the learner
reports `total_environment_frames` reached (the run is over), or once the learner has
not answered for `timeout` seconds (its host is gone; before its first answer, at least
`STARTUP_SECONDS`). An agent that stopped for the second reason exits with
`ORPHANED_EXIT_CODE`, so that what started it can tell a vanished learner from the end
of the run (`seed_graph.launch.slurm.step` then ends the Slurm job)."""

import time
from typing import Optional, Sequence

# A learner that has not answered yet may still be starting (building its graphs, its
# environments, restoring a checkpoint): until its first answer it gets at least this.
STARTUP_SECONDS = 180.0
ORPHANED_EXIT_CODE = 3  # A host agent that stopped because the learner was gone.


class OrphanCondition:
  """A supervisor's stop condition for a host without the learner (see the module
  docstring); `learner_gone` says whether it stopped the host for want of a learner."""

  def __init__(self, total_environment_frames: int, timeout: float):
    self._total_frames = total_environment_frames
    self._timeout = timeout
    self._started = time.monotonic()
    self.learner_gone = False

  def __call__(self, run_statuses: Sequence) -> Optional[str]:
    if any(s.stats and s.stats.get('frames', 0) >= self._total_frames
           for s in run_statuses):
      return 'the learner reached total_environment_frames'
    updates = [s.last_update for s in run_statuses if s.last_update is not None]
    reason = None
    if not updates:
      if time.monotonic() - self._started > max(self._timeout, STARTUP_SECONDS):
        reason = f'the learner never answered in {max(self._timeout, STARTUP_SECONDS):g} s'
    elif time.monotonic() - max(updates) > self._timeout:
      reason = (f'the learner has not answered for {self._timeout:g} s '
                '(--orphan_timeout_seconds)')
    self.learner_gone = reason is not None
    return reason
