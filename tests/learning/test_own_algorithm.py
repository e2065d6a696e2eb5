"""A third algorithm added outside seed_graph (`examples/my_algorithm/`, an n-step
actor-critic): the launchers take it by `config.algorithm` alone. It trains CartPole
through `launch.local`, `launch.eval` restores, plays and films it, and `--print_config`
documents its keys."""

import os
import subprocess
import sys

from tests import helpers

_CONFIG = 'examples/my_algorithm/cartpole.py'
# One run on 2 cores (shared with another training): a mean training return of 243 at
# 97k frames, 458 at 166k.
_TARGET, _BUDGET = 200, 250_000


def test_an_algorithm_of_ones_own_trains_is_evaluated_filmed_and_documented(tmp_path):
  # A second, fresh run for an unlucky draw, as the V-trace learning test allows (one CI
  # run reached 200 only after the budget, 488 by 405k frames).
  for attempt in ('run', 'second_run'):
    logdir = tmp_path / attempt
    reached, best = helpers.train_until_return(logdir, _TARGET, _BUDGET, config=_CONFIG)
    if reached is not None:
      break
  assert reached is not None, f'best (return, frames): {best}'
  # The program is this algorithm's, named by its builder.
  assert 'n_step_actor_critic' in (logdir / 'program.dot').read_text()

  result, summary = helpers.run_eval(logdir, '--episodes=1', '--max_episode_steps=30',
                                     f'--video={tmp_path / "films"}')
  assert summary, result.stdout[-2000:] + result.stderr[-2000:]
  film = summary['results'][0]['video']
  # At most the cap; fewer when the agent drops the pole first (a CI run saw 12).
  assert os.path.getsize(film) > 0 and 0 < summary['results'][0]['steps'] <= 30

  listing = subprocess.run(
      [sys.executable, '-m', 'seed_graph.launch.local', f'--config={_CONFIG}',
       f'--logdir={tmp_path / "unused"}', '--print_config'],
      cwd=helpers.REPO, capture_output=True, text=True, timeout=300)
  assert listing.returncode == 0, listing.stderr[-2000:]
  assert "algorithm = 'examples.my_algorithm'" in listing.stdout
  assert 'learner.value_cost = 0.5' in listing.stdout
  assert 'network.torso = ' in listing.stdout  # The keys every algorithm has.
