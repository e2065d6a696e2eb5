"""R2D2 learning test: the shipped CartPole config, exactly as users launch it."""

from tests import helpers

BUDGET_FRAMES = 1_000_000


def _learns(logdir, *flags):
  reached, best = helpers.train_until_return(logdir, 400, BUDGET_FRAMES, *flags,
                                             config='cartpole_r2d2')
  # Mean return of the last 100 training episodes (Ape-X epsilons included).
  assert reached is not None, f'best (return, frames): {best}'
  return reached


def test_cartpole_r2d2_reaches_400_within_1m_frames(tmp_path):
  reached = _learns(tmp_path / 'cartpole_r2d2')
  print(f"\nCartPole R2D2: mean return {reached['episode_return']:.1f} at "
        f"{reached['frames']} frames, {reached['learner_steps']} learner steps, "
        f"{reached['wall_time']:.0f} s")

