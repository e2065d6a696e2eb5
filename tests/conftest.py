"""The suite's pytest configuration. A test's tier is the folder it is in, and nothing
else decides it: `unit/` (in one process, seconds), `integration/` (whole programs,
processes, network namespaces), `learning/` (trains to a score, minutes). Each test gets
its tier as a marker (`pytest -m unit`); tests/BUILD gives Bazel the same tiers as tags,
and scripts/test.sh runs the unit tier on the TPU VM learner host's Python 3.8."""

import os
import sys

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '2')
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if REPO not in sys.path:
  sys.path.insert(0, REPO)

# pylint: disable=unused-import,wrong-import-position
from tests.machine_use import pytest_runtest_protocol, pytest_terminal_summary  # noqa
# pylint: enable=unused-import,wrong-import-position

TIERS = ('unit', 'integration', 'learning')


def pytest_configure(config):
  for tier in TIERS:
    config.addinivalue_line('markers', f'{tier}: tests in tests/{tier}/')
  # scripts/test.sh builds Football beside the tests that do not need it, then runs these.
  config.addinivalue_line('markers', 'football: needs Google Research Football (gfootball)')


def pytest_collection_modifyitems(items):
  for item in items:
    relative = os.path.relpath(str(item.fspath), os.path.join(REPO, 'tests'))
    tier = relative.split(os.sep)[0]
    if tier not in TIERS:
      raise RuntimeError(f'{item.nodeid}: every test belongs in tests/unit, '
                         'tests/integration or tests/learning')
    item.add_marker(tier)
