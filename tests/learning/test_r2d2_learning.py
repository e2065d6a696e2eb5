"""R2D2 learning test: the shipped CartPole config, exactly as users launch it."""

from tests import helpers

# The mean training return (the last 100 episodes of every training environment, Ape-X
# epsilons up to 0.4 included; random play scores about 22). Runs of the config pass 300
# at 200k-250k frames, then spread widely: some reach 400 by 421k frames, others not by
# 550k (docs/results/cartpole.md#r2d2); a 400 target failed CI on such a draw.
TARGET_RETURN = 300
BUDGET_FRAMES = 1_000_000


def test_cartpole_r2d2_reaches_300_within_1m_frames(tmp_path):
  # The bound is the frame budget; the time limit only catches a hung run (this test
  # took 890 s of its former 900 on an AVX2-only 2-core EPYC beside the unit tier).
  reached, best = helpers.train_until_return(tmp_path / 'cartpole_r2d2', TARGET_RETURN,
                                             BUDGET_FRAMES, config='cartpole_r2d2',
                                             timeout=1500)
  assert reached is not None, f'best (return, frames): {best}'
  print(f"\nCartPole R2D2: mean return {reached['episode_return']:.1f} at "
        f"{reached['frames']} frames, {reached['learner_steps']} learner steps, "
        f"{reached['wall_time']:.0f} s")
