"""An experiment of one's own: a program function in a file outside the project, built
from `seed_graph`'s public building blocks only, launched with `--program`."""

import os
import subprocess
import sys

from tests import helpers

_MY_PROGRAM = '''
import launchpad as lp
import seed_graph as sg


def make_program(config):
  program = lp.Program('my_vtrace')
  with program.group('trainer'):  # Any group name: the node type says what it is.
    learner = program.add_node(sg.LearnerNode(config, sg.VTrace))
  sg.add_actors_and_evaluators(program, learner, config)
  return program


def not_a_program(config):
  return {'learner': config}


def needs_two(config, other):
  return None


def no_learner(config):
  return lp.Program('empty')
'''


def _command(logdir, program, *flags, config='cartpole_vtrace'):
  # A preset by name, or a file of the checkout by its path there: the command runs in
  # the user's own directory.
  if config.endswith('.py'):
    config = os.path.join(helpers.REPO, config)
  return [sys.executable, '-m', 'seed_graph.launch.local', f'--config={config}',
          f'--logdir={logdir}', f'--program={program}', *flags]


def _launch(directory, logdir, program, *flags, timeout=300,
            config='cartpole_vtrace'):
  return subprocess.run(_command(logdir, program, *flags, config=config), cwd=directory,
                        capture_output=True, text=True, timeout=timeout)


def test_a_program_of_ones_own_trains_and_stops_cleanly(tmp_path):
  (tmp_path / 'my_experiment.py').write_text(_MY_PROGRAM)
  (tmp_path / 'my_broken_experiment.py').write_text('def make_program(config)\n')
  logdir = tmp_path / 'run'
  result = _launch(tmp_path, logdir, 'my_experiment:make_program',
                   '--config.total_environment_frames=6000', *helpers.SMALL_VTRACE_FLAGS)
  assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
  assert 'launching my_vtrace: 4 nodes' in result.stdout
  assert result.stdout.strip().splitlines()[-1].startswith('finished: ')
  final = helpers.read_metrics(logdir)[-1]
  assert final['frames'] >= 6000 and final['learner_steps'] > 0
  assert helpers.latest_checkpoint(logdir)  # It stopped the normal way, saving.
  refusals = []
  for program, needle in (
      ('my_experiment:not_a_program', 'returned dict, not a launchpad Program'),
      ('my_experiment:needs_two', 'needs_two(config, other) cannot be called with the '
                                  'config alone'),
      ('my_experiment:absent', "'my_experiment' has no function 'absent'"),
      ('my_experiment:no_learner', 'the program has no seed_graph LearnerNode'),
      ('elsewhere:make_program', "cannot import 'elsewhere'"),
      ('my_broken_experiment:make_program', "'my_broken_experiment' does not parse: "),
      ('make_program', "expected 'package.module:function'")):
    # All at once (a logdir each): each is a launcher importing TensorFlow, then refusing.
    refusals.append((program, needle, subprocess.Popen(
        _command(tmp_path / f'refused{len(refusals)}', program), cwd=tmp_path,
        text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)))
  try:
    for program, needle, refused in refusals:
      _, stderr = refused.communicate(timeout=180)
      assert refused.returncode == 2, stderr[-2000:]
      (line,) = stderr.strip().splitlines()
      assert line.startswith(f'error: --program={program}: ') and needle in line, line
  finally:
    for _, _, refused in refusals:
      refused.kill()
      refused.wait()


def test_many_tasks_one_learner_reports_every_task(tmp_path):
  # examples/many_tasks.py on Gymnasium's CartPole-v1 and CartPole-v0: the learner's
  # metrics and the status line carry each task's returns, training and evaluation.
  logdir = tmp_path / 'tasks'
  result = _launch(helpers.REPO, logdir, 'examples.many_tasks:make_program',
                   '--config.total_environment_frames=12000', *helpers.SMALL_VTRACE_FLAGS,
                   config='examples/cartpole_tasks_config.py')
  assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
  # 1 learner; per task 2 actors and 1 evaluator.
  assert 'launching many_tasks: 7 nodes' in result.stdout
  final = helpers.read_metrics(logdir)[-1]
  for task in ('CartPole-v1', 'CartPole-v0'):
    assert final[f'episodes/{task}'] > 0 and final[f'episode_return/{task}'] > 0
    assert final[f'eval_episode_return/{task}'] > 0
  assert 'tasks: CartPole-v1 ' in result.stdout
