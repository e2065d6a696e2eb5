import os
import sys

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '2')
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if REPO not in sys.path:
  sys.path.insert(0, REPO)


def pytest_configure(config):
  config.addinivalue_line('markers', 'slow: learning tests that train for minutes')
