"""Stops a node process whose launcher has died.

`launch.local` starts local_mp node processes with `SEED_GRAPH_LAUNCHER_PID` set to its
own pid. Launchpad 0.5.2 stops its node processes when the launcher exits normally or on
Ctrl-C, but a launcher killed outright (SIGKILL, OOM killer) leaves them running, each
still holding its port and the CPU. A node calls `watch()` when it starts: a daemon
thread waits on the launcher's pidfd and, when the launcher is gone:
1. points the process's stdout and stderr at its log file (`SEED_GRAPH_NODE_LOG`): the
   launcher copied them there through a pipe that is now closed, so the node's last
   lines (the learner's checkpoint) are kept, and no write fails on the dead pipe;
2. sends this process SIGTERM, which Launchpad's worker manager turns into a normal
   stop (the learner finishes its step and saves);
3. if the process still runs `STOP_DEADLINE_SECONDS` later, writes every thread's stack
   to the log and exits: nothing else would ever stop it.
Outside a local_mp launch (no variable, or this process is the launcher, as under
local_mt) it does nothing. Python 3.8 (a TPU VM runtime's) has no `os.pidfd_open`:
there the thread checks once a second that the launcher still exists.
"""

import faulthandler
import os
import select
import signal
import threading
import time

from absl import logging

LAUNCHER_PID_VARIABLE = 'SEED_GRAPH_LAUNCHER_PID'
NODE_LOG_VARIABLE = 'SEED_GRAPH_NODE_LOG'
# Long enough for a learner to finish a training step and save a checkpoint.
STOP_DEADLINE_SECONDS = 60.0

_started = False
_lock = threading.Lock()


def _write_output_to_log():
  log_path = os.environ.get(NODE_LOG_VARIABLE)
  if not log_path:
    return
  try:
    log = os.open(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
  except OSError as error:
    logging.warning('cannot write to %s: %s', log_path, error)
    return
  os.dup2(log, 1)
  os.dup2(log, 2)
  os.close(log)


def _stop_this_node(launcher_pid: int):
  _write_output_to_log()
  logging.warning('launcher (pid %d) is gone; stopping this node', launcher_pid)
  os.kill(os.getpid(), signal.SIGTERM)
  time.sleep(STOP_DEADLINE_SECONDS)
  # Still running: the stop is stuck (this thread is a daemon, gone with the process).
  logging.error('this node did not stop within %.0f s of its launcher\'s death; '
                'its threads follow, then it exits', STOP_DEADLINE_SECONDS)
  faulthandler.dump_traceback(all_threads=True)
  os._exit(1)  # pylint: disable=protected-access


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
    try:
      target, args = _wait_then_stop, (os.pidfd_open(launcher_pid), launcher_pid)
    except ProcessLookupError:  # Gone before we looked.
      target, args = _stop_this_node, (launcher_pid,)
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
    _start_watch_thread(launcher_pid)
    _started = True
    return True
