"""launcher_watch: a node process stops when its launcher dies, and only then."""

import os
import signal
import subprocess
import sys
import time

from seed_graph import launcher_watch

# A stand-in node: starts the watch, then reports and sleeps until stopped.
_NODE = """
import sys, time
from seed_graph import launcher_watch
print(launcher_watch.watch(), flush=True)
time.sleep(60)
"""


def _start_node(launcher_pid):
  env = dict(os.environ, **{launcher_watch.LAUNCHER_PID_VARIABLE: str(launcher_pid)})
  return subprocess.Popen([sys.executable, '-c', _NODE], env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True,
                          cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_node_is_stopped_with_sigterm_when_its_launcher_dies():
  launcher = subprocess.Popen(['sleep', '60'])
  node = _start_node(launcher.pid)
  assert node.stdout.readline().strip() == 'True'  # Watching.
  time.sleep(0.5)
  assert node.poll() is None  # The launcher is alive: the node keeps running.
  launcher.kill()
  launcher.wait()
  assert node.wait(timeout=10) == -signal.SIGTERM


def test_node_whose_launcher_is_already_gone_stops_at_once():
  launcher = subprocess.Popen(['true'])
  launcher.wait()
  node = _start_node(launcher.pid)
  assert node.wait(timeout=10) == -signal.SIGTERM


def test_inert_outside_a_local_mp_launch(monkeypatch):
  monkeypatch.delenv(launcher_watch.LAUNCHER_PID_VARIABLE, raising=False)
  assert not launcher_watch.watch()
  # Under local_mt the nodes run inside the launcher itself.
  monkeypatch.setenv(launcher_watch.LAUNCHER_PID_VARIABLE, str(os.getpid()))
  assert not launcher_watch.watch()
