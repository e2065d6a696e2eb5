"""Runs a benchmark as its docstring says (`python -m benchmarks.<name>` from the
repository root) and reads its JSON lines: what the benchmark tests share."""

import json
import os
import subprocess
import sys

from tests import helpers

# The whole program start-up (TensorFlow in every process) dominates most benchmarks.
TIMEOUT = 240


def run_benchmark(name, *args) -> str:
  """Runs the benchmark to its end; requires exit code 0; returns its stdout."""
  result = subprocess.run([sys.executable, '-m', f'benchmarks.{name}', *args],
                          cwd=helpers.REPO, capture_output=True, text=True, timeout=TIMEOUT,
                          env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL='2'))
  assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-5000:]
  return result.stdout


def json_lines(stdout):
  return [json.loads(line) for line in stdout.splitlines() if line.startswith('{')]


def last_json(stdout) -> dict:
  records = json_lines(stdout)
  assert records, f'no JSON line in:\n{stdout[-3000:]}'
  return records[-1]
