"""launcher_watch: a node process stops when its launcher dies, and only then."""

import os
import signal
import subprocess
import sys
import time

from seed_graph.lifecycle import launcher_watch

# A stand-in node: starts the watch, reports, then sleeps until stopped. With 'stuck' it
# ignores SIGTERM, as a node whose stop hangs would; with 'talk' it says so on SIGTERM,
# from its main loop as Launchpad's nodes do (a handler that printed could interrupt the
# report's own print, a reentrant write that fails). Its stop deadline is 8 s: on a
# loaded machine a node's exit, interpreter shutdown included, has taken more than 3.
_NODE = """
import signal, sys, time
from seed_graph.lifecycle import launcher_watch
launcher_watch.STOP_DEADLINE_SECONDS = 8.0
stopped = []
if sys.argv[1] == 'stuck':
  signal.signal(signal.SIGTERM, signal.SIG_IGN)
elif sys.argv[1] == 'talk':
  signal.signal(signal.SIGTERM, lambda *_: stopped.append(True))
print(launcher_watch.watch(), flush=True)
deadline = time.time() + 60
while time.time() < deadline and not stopped:
  time.sleep(0.05)
if stopped:
  print('stopping: saved', flush=True)
"""


def _start_node(launcher_pid, mode='plain', log_path=None):
  env = dict(os.environ, **{launcher_watch.LAUNCHER_PID_VARIABLE: str(launcher_pid)})
  if log_path:
    env[launcher_watch.NODE_LOG_VARIABLE] = str(log_path)
  return subprocess.Popen([sys.executable, '-c', _NODE, mode], env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
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


def test_output_after_the_launchers_death_goes_to_the_node_log(tmp_path):
  # The launcher read the node's output through a pipe; with it gone, the node's last
  # words are written to its log instead of failing on the closed pipe.
  log_path = tmp_path / 'learner_0.log'
  launcher = subprocess.Popen(['sleep', '60'])
  node = _start_node(launcher.pid, 'talk', log_path)
  assert node.stdout.readline().strip() == 'True'
  node.stdout.close()  # The launcher's end of the pipe, closed as its death would.
  launcher.kill()
  launcher.wait()
  assert node.wait(timeout=20) == 0, log_path.read_text()
  log = log_path.read_text()
  assert 'launcher (pid %d) is gone' % launcher.pid in log
  assert log.rstrip().endswith('stopping: saved')


def test_node_whose_stop_hangs_leaves_its_stacks_and_exits(tmp_path):
  log_path = tmp_path / 'actor_0.log'
  launcher = subprocess.Popen(['sleep', '60'])
  node = _start_node(launcher.pid, 'stuck', log_path)
  assert node.stdout.readline().strip() == 'True'
  launcher.kill()
  launcher.wait()
  time.sleep(1.5)
  assert node.poll() is None  # SIGTERM was ignored; the deadline (8 s) is not up yet.
  assert node.wait(timeout=20) == 1
  log = log_path.read_text()
  assert 'did not stop within 8 s' in log
  assert 'Thread 0x' in log  # Every thread's stack (faulthandler's format),
  assert 'File "<string>", line' in log  # the main thread's in the stand-in's sleep.


def test_inert_outside_a_local_mp_launch(monkeypatch):
  monkeypatch.delenv(launcher_watch.LAUNCHER_PID_VARIABLE, raising=False)
  assert not launcher_watch.watch()
  # Under local_mt the nodes run inside the launcher itself.
  monkeypatch.setenv(launcher_watch.LAUNCHER_PID_VARIABLE, str(os.getpid()))
  assert not launcher_watch.watch()
