"""One program per logdir: a launcher holds `<logdir>/launcher.lock` for its whole run.

The lock is an advisory `flock` on that file, which the kernel drops when its holder dies,
however it dies; the file also names the holder (pid, host, start time) for the one-line
refusal a second launcher gets. A holder that ends normally (its program done, Ctrl-C,
SIGTERM) empties the file as it goes; one that names a holder is left by a launcher that did
not (SIGKILL, a crash, the machine gone), and is taken over, saying so. A multi-host agent
locks `<logdir>/launcher-<host>.lock`, so the hosts of one run can share a logdir and two
agents of one host cannot. Only local logdirs are locked (a bucket has no `flock`).
"""

import atexit
import fcntl
import json
import os
import socket
import time
from typing import Optional, TextIO

from seed_graph.config.schema import ConfigError


def lock_path(logdir: str, host: Optional[str] = None) -> str:
  return os.path.join(logdir, 'launcher.lock' if host is None else f'launcher-{host}.lock')


class LogdirLock:
  """`LogdirLock(logdir, host).acquire()` -> a line to print, or None; ConfigError if
  another launcher holds it. Held until `release()` or this process ends."""

  def __init__(self, logdir: str, host: Optional[str] = None):
    self.path = lock_path(logdir, host)
    self._file: Optional[TextIO] = None
    self._owner: Optional[int] = None

  def acquire(self) -> Optional[str]:
    if '://' in self.path:
      return None
    file = open(self.path, 'a+')  # pylint: disable=consider-using-with
    try:
      fcntl.flock(file, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
      holder = _describe(_read(file))
      file.close()
      raise ConfigError(f'--logdir={os.path.dirname(self.path)}: in use by another '
                        f'launcher ({holder}); stop it or use another --logdir') from None
    previous = _read(file)
    file.seek(0)
    file.truncate()
    json.dump({'pid': os.getpid(), 'host': socket.gethostname(),
               'started': time.strftime('%Y-%m-%d %H:%M:%S')}, file)
    file.flush()
    self._file = file
    self._owner = os.getpid()  # Not a forked child, which would inherit the exit hook.
    atexit.register(self.release)
    if previous:
      return (f'took over {self.path} from a launcher that is gone '
              f'({_describe(previous)})')
    return None

  def release(self) -> None:
    """Empties the holder's record, then drops the lock (closing drops the flock)."""
    if self._file and os.getpid() == self._owner:
      self._file.seek(0)
      self._file.truncate()
      self._file.flush()
    if self._file:
      self._file.close()
      self._file = None


def _read(file: TextIO) -> dict:
  file.seek(0)
  try:
    return json.loads(file.read() or '{}')
  except ValueError:
    return {}


def _describe(holder: dict) -> str:
  if not holder:
    return 'holder unknown'
  return (f'pid {holder.get("pid")} on {holder.get("host")}, started '
          f'{holder.get("started")}')
