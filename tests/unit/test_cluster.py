"""`launch.cluster --dry_run`: the placement plan and every gcloud command, in order,
exactly as a real run would execute them, and nothing run.

After a deliberate change to the commands (or to a config, which changes the plan's
fingerprint), regenerate the expected text with the command in `_UP`, run from the
repository root with `--dry_run > tests/unit/data/cluster_up_dry_run.txt`, and read the diff."""

import os
import subprocess
import sys

from tests import helpers

_WHERE = ['--project=my-project', '--zone=europe-west4-a', '--run_id=pong1']
_UP = ['up', '--config=atari_vtrace', '--logdir=runs/pong1', *_WHERE,
       '--actor_hosts=2', '--learner_accelerator=v3-8', '--spot', '--config.actors.num=4']


def _dry_run(*args):
  result = subprocess.run([sys.executable, '-m', 'seed_graph.launch.cluster', *args, '--dry_run'],
                          cwd=helpers.REPO, capture_output=True, text=True, timeout=120)
  assert result.returncode == 0, result.stderr[-2000:]
  return result.stdout


def test_up_prints_the_plan_and_every_command_in_order_and_runs_nothing():
  with open(os.path.join(helpers.REPO, 'tests', 'unit', 'data', 'cluster_up_dry_run.txt')) as f:
    expected = f.read()
  assert _dry_run(*_UP) == expected
  assert not os.path.exists(os.path.join(helpers.REPO, '.cluster', 'pong1'))


def test_restart_stop_and_down_touch_what_they_say():
  restart = _dry_run(*_UP, '--restart_host=cpu1').splitlines()
  assert restart[0] == "# 1. start cpu1's agent" and len(restart) == 2
  assert 'sg-pong1-cpu1' in restart[1] and '--host=cpu1' in restart[1]
  stop = [line for line in _dry_run('stop', *_WHERE).splitlines() if line.startswith('#')]
  assert stop == ['# 1. stop cpu0', '# 2. stop cpu1', '# 3. stop learner']  # Actors first.
  down = _dry_run('down', *_WHERE)
  for name in ('sg-pong1-cpu0 sg-pong1-cpu1', 'sg-pong1-learner',
               'firewall-rules delete sg-pong1'):
    assert name in down


def test_a_usage_error_is_one_line_and_exit_code_2():
  for args, message in (
      (['status', '--backend=netns'], '--backend=netns runs `up` in the foreground'),
      (['launch', *_WHERE], 'one command: up | '),
      (['status'], 'missing --project, --zone, --run_id'),
      (['up', *_WHERE], 'up needs --config and --logdir')):
    result = subprocess.run([sys.executable, '-m', 'seed_graph.launch.cluster', *args],
                            cwd=helpers.REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stderr[-2000:]
    assert result.stdout == '' and result.stderr.startswith(f'error: {message}'), args
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr[-2000:]
