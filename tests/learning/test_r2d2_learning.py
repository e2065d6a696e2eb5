"""R2D2 learning test: the shipped CartPole config, exactly as users launch it."""

import os
import signal
import subprocess
import time

import pytest

from tests import helpers

BUDGET_FRAMES = 1_000_000


def _train_until_400(logdir, *flags):
  """Launches the shipped config (plus `flags`) until the mean training return reaches
  400; returns (that metrics record or None, the best (return, frames) seen)."""
  launcher = subprocess.Popen(
      helpers.launch_command(logdir, *flags, config='configs/cartpole_r2d2.py'),
      cwd=helpers.REPO,
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
  return reached, max(((m.get('episode_return') or 0.0), m['frames']) for m in metrics)


def test_cartpole_r2d2_reaches_400_within_1m_frames(tmp_path):
  reached, best = _train_until_400(tmp_path / 'cartpole_r2d2')
  assert reached is not None, f'best (return, frames): {best}'
  assert reached['frames'] <= BUDGET_FRAMES, reached
  print(f"\nCartPole R2D2: mean return {reached['episode_return']:.1f} at "
        f"{reached['frames']} frames, {reached['learner_steps']} learner steps, "
        f"{reached['wall_time']:.0f} s")


@pytest.mark.parametrize('inference,training', [(1, 3), (2, 2)])
def test_cartpole_r2d2_learns_on_a_learner_split_over_devices(tmp_path, inference,
                                                              training):
  # 4 logical CPU devices; with 3 training devices the batch is 30 (it must split evenly).
  reached, best = _train_until_400(
      tmp_path / 'split', f'--config.learner.inference_devices={inference}',
      f'--config.learner.training_devices={training}',
      f'--config.learner.batch_size={30 if training == 3 else 32}')
  assert reached is not None, f'best (return, frames): {best}'
  assert reached['frames'] <= BUDGET_FRAMES, reached
