"""One program per logdir: the launcher's lock on it."""

import json
import os
import subprocess
import sys

import pytest

from seed_graph.config.schema import ConfigError
from seed_graph.launch.runs import logdir_lock


def test_a_second_holder_is_refused_naming_the_first(tmp_path):
  first = logdir_lock.LogdirLock(str(tmp_path))
  assert first.acquire() is None
  with open(first.path) as f:
    holder = json.load(f)
  assert holder['pid'] == os.getpid()
  with pytest.raises(ConfigError, match=rf'in use by another launcher \(pid {os.getpid()} '
                     rf'on .*, started {holder["started"]}\)'):
    logdir_lock.LogdirLock(str(tmp_path)).acquire()
  first.release()
  assert logdir_lock.LogdirLock(str(tmp_path)).acquire() is None  # Released: nothing to say.


def test_a_holder_that_ends_normally_leaves_no_record_behind(tmp_path):
  code = ('import sys; from seed_graph.launch.runs import logdir_lock; '
          f'logdir_lock.LogdirLock({str(tmp_path)!r}).acquire(); sys.exit(0)')
  subprocess.run([sys.executable, '-c', code], check=True)
  assert logdir_lock.LogdirLock(str(tmp_path)).acquire() is None


def test_a_dead_holders_lock_is_taken_over_and_said_so(tmp_path):
  # A process takes the lock and dies without releasing it (SIGKILL, a crash).
  code = ('import os, sys; from seed_graph.launch.runs import logdir_lock; '
          f'logdir_lock.LogdirLock({str(tmp_path)!r}).acquire(); '
          'print(os.getpid(), flush=True); '
          'os._exit(0)')
  dead_pid = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                            check=True).stdout.strip()
  line = logdir_lock.LogdirLock(str(tmp_path)).acquire()
  assert line.startswith(f'took over {tmp_path}/launcher.lock from a launcher that is '
                         f'gone (pid {dead_pid} on ')


def test_each_host_of_a_run_has_its_own_lock(tmp_path):
  cpu0 = logdir_lock.LogdirLock(str(tmp_path), 'cpu0')
  cpu0.acquire()
  assert logdir_lock.LogdirLock(str(tmp_path), 'cpu1').acquire() is None
  with pytest.raises(ConfigError, match='in use by another launcher'):
    logdir_lock.LogdirLock(str(tmp_path), 'cpu0').acquire()
