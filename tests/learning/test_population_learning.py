"""The population-based training example (`examples/population.py`) trains: a population
of two V-trace learners on CartPole, launched with `--program`, whose best member reaches
the single learner's target within the single learner's frame budget
(tests/learning/test_learning.py), with the controller having copied members on the way,
each copy a line on the launcher's console; a member's checkpoint is then evaluated by
`launch.eval` from its own logdir."""

import json

from tests import helpers

_TARGET, _BUDGET = 450, 500_000


def test_a_population_of_two_reaches_the_single_learners_target(tmp_path):
  logdir = tmp_path / 'population'
  members = [logdir / 'member_0', logdir / 'member_1']
  reached, best = helpers.train_until_return(
      logdir, _TARGET, _BUDGET, '--program=examples.population:make_program',
      '--config.population.size=2', '--config.population.interval_seconds=10',
      learner_logdirs=members, console=tmp_path / 'console.txt')
  assert reached is not None, f'best (return, frames): {best}'
  rounds = [json.loads(line) for line in
            (logdir / 'population.jsonl').read_text().splitlines()]
  changes = [change for r in rounds for change in r['changes']]
  assert changes, 'the controller never copied a member'
  console = (tmp_path / 'console.txt').read_text()
  said = [line for line in console.splitlines() if ' copied member ' in line]
  assert len(said) == len(changes), console[-3000:]
  assert said[0].startswith('[controller/0] member '), said[0]
  # Each copy is in the metrics of the member that took it.
  for k, member in enumerate(members):
    taken = sum(c['member'] == k for c in changes)
    loaded = max((m.get('weights_loaded', 0) for m in helpers.read_metrics(member)),
                 default=0)
    assert loaded == taken, (k, loaded, taken)
    assert helpers.latest_checkpoint(member)  # Each member saved when stopped.
  # A member's logdir is a run of its own for launch.eval: its learner recorded its config.
  result, summary = helpers.run_eval(members[1], '--episodes=2')
  assert summary, result.stdout[-2000:] + result.stderr[-2000:]
  assert summary['checkpoint'].endswith(helpers.latest_checkpoint(members[1]))
