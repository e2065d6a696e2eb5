"""R2D2 learning test: the shipped CartPole config, exactly as users launch it."""

import os
import signal
import subprocess
import time

import pytest

from tests import helpers

BUDGET_FRAMES = 1_000_000


@pytest.mark.slow
def test_cartpole_r2d2_reaches_400_within_1m_frames(tmp_path):
  logdir = tmp_path / 'cartpole_r2d2'
  launcher = subprocess.Popen(
      helpers.launch_command(logdir, config='configs/cartpole_r2d2.py'), cwd=helpers.REPO,
      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
  reached = None
  try:
    deadline = time.time() + 900
    while time.time() < deadline and launcher.poll() is None:
      for record in helpers.read_metrics(logdir):
        # Mean return of the last 100 training episodes (Ape-X epsilons included).
        if (record.get('episode_return') or 0.0) >= 400 and reached is None:
          reached = record
      if reached is not None:
        break
      time.sleep(2.0)
  finally:
    if launcher.poll() is None:
      os.killpg(launcher.pid, signal.SIGINT)  # Ctrl-C stops every node.
      try:
        launcher.wait(timeout=120)
      except subprocess.TimeoutExpired:
        os.killpg(launcher.pid, signal.SIGKILL)
        launcher.wait()
  metrics = helpers.read_metrics(logdir)
  best = max(((m.get('episode_return') or 0.0), m['frames']) for m in metrics)
  assert reached is not None, f'best (return, frames): {best}'
  assert reached['frames'] <= BUDGET_FRAMES, reached
  print(f"\nCartPole R2D2: mean return {reached['episode_return']:.1f} at "
        f"{reached['frames']} frames, {reached['learner_steps']} learner steps, "
        f"{reached['wall_time']:.0f} s")
