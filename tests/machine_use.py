"""How busy the whole machine was during each slow test, printed after pytest's own
`--durations` table: the busy CPU time of every process (daemons and namespace hosts
included, from /proc/stat) over the test's wall-clock, as a share of all CPUs; then the
same for each test file, every test of it summed, longest first.

Why: the suite is long, and only tests that leave CPUs idle (waiting out timeouts,
restarts, a lost host) can share the machine with another test without slowing it.
This table says which ones do; the files' table is what splitting the suite into
processes that run side by side has to balance. It counts every process of the machine:
in `scripts/test.sh` the integration tier's figures include the work running beside it
(the Bazel unit tier, then Football's build; the learning tier runs alone); beside a
training run they only show the sum of both."""

import os
import time
from typing import Dict, Optional, Tuple

import pytest

_SHOWN = 25
_SHOWN_FROM_SECONDS = 20.0
_cpu_use: Dict[str, Tuple[float, float]] = {}  # test id -> (wall s, busy CPU s)


def _busy_cpu_seconds() -> Optional[float]:
  """CPU seconds every CPU of this machine has spent busy since boot; None off Linux."""
  try:
    with open('/proc/stat') as stat:
      ticks = [int(field) for field in stat.readline().split()[1:9]]
  except (OSError, ValueError):
    return None
  user, nice, system, idle, iowait, irq, softirq, steal = ticks
  del idle, iowait
  return (user + nice + system + irq + softirq + steal) / os.sysconf('SC_CLK_TCK')


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
  del nextitem
  start, busy_at_start = time.monotonic(), _busy_cpu_seconds()
  yield
  busy_at_end = _busy_cpu_seconds()
  if busy_at_start is not None and busy_at_end is not None:
    _cpu_use[item.nodeid] = (time.monotonic() - start, busy_at_end - busy_at_start)


def pytest_terminal_summary(terminalreporter):
  slowest = sorted(_cpu_use.items(), key=lambda entry: -entry[1][0])[:_SHOWN]
  slowest = [entry for entry in slowest if entry[1][0] >= _SHOWN_FROM_SECONDS]
  if not slowest:
    return  # A fast run, or a worker of pytest-xdist's collected them.
  cpus = os.cpu_count() or 1
  terminalreporter.write_sep('=', f'how busy the machine ({cpus} CPUs) was during the '
                             'slowest tests (setup, call and teardown)')
  for test, (wall, busy) in slowest:
    terminalreporter.write_line(f'{wall:8.1f} s {busy / wall / cpus:5.0%} busy  {test}')
  files: Dict[str, Tuple[float, float]] = {}
  for test, (wall, busy) in _cpu_use.items():
    path = test.split('::')[0]
    file_wall, file_busy = files.get(path, (0.0, 0.0))
    files[path] = (file_wall + wall, file_busy + busy)
  terminalreporter.write_sep('=', 'each test file: its tests\' wall-clock summed, how busy')
  for path, (wall, busy) in sorted(files.items(), key=lambda entry: -entry[1][0]):
    terminalreporter.write_line(f'{wall:8.1f} s {busy / max(wall, 1e-9) / cpus:5.0%} busy  '
                                f'{path}')
