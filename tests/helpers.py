"""Shared helpers of the tests: small configs and subprocess launches."""

import json
import os
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def small_cartpole_config(logdir_path, **overrides):
  from configs import cartpole_vtrace  # pylint: disable=g-import-not-at-top
  config = cartpole_vtrace.get_config()
  config.logdir = str(logdir_path)
  config.actors.num = 2
  config.actors.env_batch_size = 4
  config.evaluators.num = 1
  config.evaluators.env_batch_size = 2
  config.inference.batch_size = 16
  config.learner.batch_size = 4
  config.learner.unroll_length = 5
  config.learner.queue_capacity = 8
  config.logging.interval_seconds = 1.0
  for dotted, value in overrides.items():
    section = config
    *parents, leaf = dotted.split('.')
    for part in parents:
      section = section[part]
    section[leaf] = value
  return config


def launch_command(logdir, *flags, config='configs/cartpole_vtrace.py'):
  return [sys.executable, '-m', 'launch.local', f'--config={config}', f'--logdir={logdir}',
          *flags]


def run_launch(logdir, *flags, timeout=300, env=None, config='configs/cartpole_vtrace.py'):
  return subprocess.run(launch_command(logdir, *flags, config=config), cwd=REPO,
                        capture_output=True, text=True, timeout=timeout,
                        env=dict(os.environ, **(env or {})))


def read_metrics(logdir):
  path = os.path.join(logdir, 'metrics.jsonl')
  if not os.path.exists(path):
    return []
  with open(path) as f:
    return [json.loads(line) for line in f if line.strip()]


def wait_for(condition, seconds: float) -> bool:
  """Polls `condition()` until it holds (True) or `seconds` pass (False)."""
  deadline = time.time() + seconds
  while not condition():
    if time.time() > deadline:
      return False
    time.sleep(0.1)
  return True
