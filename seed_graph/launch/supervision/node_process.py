"""One node's process, started (and restarted) from its command by
`seed_graph.launch.supervision.supervisor`.

Its output (stdout and stderr) goes to `<logdir>/logs/<group>_<index>.log`, appended across
restarts, and what a person must see of it (`seed_graph.launch.supervision.console`) to the
console, each line prefixed with the node's name. It runs in a session of its own, so a
Ctrl-C in the terminal reaches the launcher only, and the launcher stops nodes in order.
"""

import os
import signal
import subprocess
import threading
import time
from typing import Optional

import psutil

from seed_graph.launch.supervision import console as console_lib
from seed_graph.launch.supervision import node_commands
from seed_graph.lifecycle import launcher_watch

NODE_NAME_VARIABLE = 'SEED_GRAPH_NODE'


class NodeProcess:
  """`start()`, then `exit_code()` (None while running), `terminate()`, `kill()`."""

  def __init__(self, command: node_commands.NodeCommand, log_dir: str,
               console: console_lib.Console):
    self.command = command
    self._console = console
    self.log_path = os.path.join(log_dir, command.name.replace('/', '_') + '.log')
    self._process: Optional[subprocess.Popen] = None
    self._pump: Optional[threading.Thread] = None
    self.started_at = 0.0
    self._log_start = 0  # Where this run's output begins in the log.

  @property
  def name(self) -> str:
    return self.command.name

  @property
  def pid(self) -> Optional[int]:
    return self._process.pid if self._process else None

  def start(self):
    env = dict(os.environ, **self.command.env)
    env[NODE_NAME_VARIABLE] = self.name  # Lets tools (and tests) tell the nodes apart.
    # Where the node writes its output itself if this launcher dies (launcher_watch).
    env[launcher_watch.NODE_LOG_VARIABLE] = os.path.abspath(self.log_path)
    self._log_start = os.path.getsize(self.log_path) if os.path.exists(self.log_path) else 0
    self._process = subprocess.Popen(
        self.command.argv, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    self.started_at = time.time()
    self._pump = threading.Thread(target=self._copy_output, args=(self._process.stdout,),
                                  name=f'output-{self.name}', daemon=True)
    self._pump.start()

  def uptime(self) -> float:
    return time.time() - self.started_at

  def exit_code(self) -> Optional[int]:
    """None while the process runs; its exit code (negative: killed by that signal)."""
    return self._process.poll() if self._process else None

  def running(self) -> bool:
    return self._process is not None and self._process.poll() is None

  def terminate(self):
    """Asks the node to stop (SIGTERM: Launchpad sets the node's stop event)."""
    if self.running():
      self._process.send_signal(signal.SIGTERM)

  def kill(self):
    """Kills the node and anything it started, at once."""
    if self._process is None:
      return
    try:
      processes = psutil.Process(self._process.pid).children(recursive=True)
    except psutil.NoSuchProcess:
      processes = []
    for process in [self._process] + processes:
      try:
        process.send_signal(signal.SIGKILL)
      except (psutil.NoSuchProcess, ProcessLookupError):
        pass
    self._process.wait()

  def uncaught_exception(self) -> Optional[str]:
    """The exception line ('TypeError: ...') of the Python traceback this run of the node
    ended with, if it ended with one; else None (a signal, an exit code of its own)."""
    self.finish_output(2.0)
    try:
      with open(self.log_path, 'rb') as log:
        log.seek(self._log_start)
        text = log.read().decode(errors='replace')
    except OSError:
      return None
    _, traceback_seen, after = text.rpartition('Traceback (most recent call last):')
    if not traceback_seen:
      return None
    lines = [line for line in after.splitlines() if line.strip()]
    last = [line for line in lines if not line.startswith((' ', '\t'))]
    return last[-1].strip() if last else None

  def finish_output(self, timeout: float = 5.0):
    """Waits until the node's last output line is written (after it exited)."""
    if self._pump is not None:
      self._pump.join(timeout)

  def _copy_output(self, pipe):
    shown = console_lib.ConsoleFilter()  # A new process: no traceback under way.
    with open(self.log_path, 'ab', buffering=0) as log:
      for line in iter(pipe.readline, b''):
        log.write(line)
        # Launchpad's stop countdown ends its lines with \r only.
        for part in line.replace(b'\r', b'\n').splitlines():
          self._console.node_line(self.name, part.decode(errors='replace'), shown)
    pipe.close()
