"""Stops a node process whose launcher has died.

`launch.local` starts local_mp node processes with `SEED_GRAPH_LAUNCHER_PID` set to its
own pid. Launchpad 0.5.2 stops its node processes when the launcher exits normally or on
Ctrl-C, but a launcher killed outright (SIGKILL, OOM killer) leaves them running, each
still holding its port and the CPU. A node calls `watch()` when it starts: a daemon
thread waits on the launcher's pidfd and, when the launcher is gone, sends this process
SIGTERM, which Launchpad's worker manager turns into a normal stop (the learner finishes
its step and saves). Outside a local_mp launch (no variable, or this process is the
launcher, as under local_mt) it does nothing. Python 3.8 (a TPU VM runtime's) has no
`os.pidfd_open`: there the thread checks once a second that the launcher still exists.
"""

import os
import select
import signal
import threading
import time

from absl import logging

LAUNCHER_PID_VARIABLE = 'SEED_GRAPH_LAUNCHER_PID'

_started = False
_lock = threading.Lock()


def _stop_this_node(launcher_pid: int):
  logging.warning('launcher (pid %d) is gone; stopping this node', launcher_pid)
  os.kill(os.getpid(), signal.SIGTERM)


def _wait_then_stop(pidfd: int, launcher_pid: int):
  poller = select.poll()
  poller.register(pidfd, select.POLLIN)
  poller.poll()  # Readable once the launcher has exited.
  _stop_this_node(launcher_pid)


def _poll_then_stop(launcher_pid: int):
  while True:
    time.sleep(1.0)
    try:
      os.kill(launcher_pid, 0)
    except ProcessLookupError:
      break
    except PermissionError:  # Alive, and not ours to signal.
      pass
  _stop_this_node(launcher_pid)


def _start_watch_thread(launcher_pid: int):
  if not hasattr(os, 'pidfd_open'):  # Python < 3.9.
    target, args = _poll_then_stop, (launcher_pid,)
  else:
    target, args = _wait_then_stop, (os.pidfd_open(launcher_pid), launcher_pid)
  threading.Thread(target=target, args=args, name='launcher-watch', daemon=True).start()


def watch() -> bool:
  """Starts the watch once per process; returns whether one is running."""
  global _started
  value = os.environ.get(LAUNCHER_PID_VARIABLE)
  if not value:
    return False
  launcher_pid = int(value)
  if launcher_pid == os.getpid():
    return False
  with _lock:
    if _started:
      return True
    try:
      _start_watch_thread(launcher_pid)
    except ProcessLookupError:  # Gone before we looked (a poll sees it within 1 s).
      _stop_this_node(launcher_pid)
      return True
    _started = True
    return True
