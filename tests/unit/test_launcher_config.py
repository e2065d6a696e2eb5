"""The launcher's command line: a bad config is one line naming the key and launches
nothing; `--print_config` shows the config and launches nothing."""

import os
import subprocess
import sys

from tests import helpers


def test_launcher_refuses_bad_config_before_starting_anything(tmp_path):
  logdir = tmp_path / 'never_created'
  result = helpers.run_launch(logdir, '--config.learner.queue_capacity=2', timeout=120)
  assert result.returncode != 0
  assert 'learner.queue_capacity' in result.stderr
  assert not os.path.exists(logdir)
  result = helpers.run_launch(logdir, '--config.learner.no_such_key=2', timeout=120)
  assert result.returncode != 0
  assert 'no_such_key' in result.stderr
  assert not os.path.exists(logdir)


def test_launcher_config_errors_are_one_line_and_name_the_closest_key(tmp_path):
  logdir = tmp_path / 'never_created'
  cases = [
      ('--config.learner.learning_rat=0.1', '--config.learner.learning_rat: no such key; '
       'did you mean learner.learning_rate? (in cartpole_vtrace)'),
      ('--config.envv.name=x', 'did you mean env.name?'),
      ('--config.learner.batch_size=abc', "--config.learner.batch_size: 'abc' is not an int "),
      ('--config.learner.batch_size=-1', 'learner.batch_size: must be positive, got -1'),
      ('--config=cartpole_vtrase', "--config=cartpole_vtrase: no preset of that name; did "
       'you mean cartpole_vtrace?'),
  ]
  for flag, message in cases:
    flags = [flag] if flag.startswith('--config.') else []
    config = flag.split('=', 1)[1] if not flags else 'cartpole_vtrace'
    result = helpers.run_launch(logdir, *flags, config=config, timeout=120)
    assert result.returncode == 2, (flag, result.stderr[-2000:])
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith('error: ') and message in lines[0], lines
  assert not os.path.exists(logdir)


def test_a_misspelt_atari_game_is_named_with_the_closest_one(tmp_path):
  result = helpers.run_launch(tmp_path / 'never_created', '--config.env.game=Pongg',
                              config='atari_vtrace_fast', timeout=120)
  assert result.returncode == 2, result.stderr[-2000:]
  (line,) = result.stderr.strip().splitlines()
  assert line.startswith("error: env.game='Pongg' is not an Atari game known to ale-py; did "
                         "you mean 'Pong'? valid: Adventure, ")


def test_print_config_shows_overrides_and_launches_nothing(tmp_path):
  logdir = tmp_path / 'never_created'
  result = helpers.run_launch(logdir, '--print_config', '--config.learner.batch_size=8',
                              timeout=120)
  assert result.returncode == 0, result.stderr[-2000:]
  lines = result.stdout.splitlines()
  # Every key, with its value and its documentation.
  assert any(line.startswith('learner.batch_size = 8 ') and
             line.endswith('# Unrolls per training step.') for line in lines), lines
  assert any(line.startswith("env.name = 'cartpole' ") for line in lines)
  assert len(lines) >= 40
  assert 'launching' not in result.stdout
  assert not os.path.exists(logdir)


def test_print_config_needs_no_logdir_and_a_run_does(tmp_path):
  command = [sys.executable, '-m', 'seed_graph.launch.local', '--config=cartpole_vtrace']
  shown = subprocess.run(command + ['--print_config'], cwd=tmp_path, capture_output=True,
                         text=True, timeout=120)
  assert shown.returncode == 0, shown.stderr[-2000:]
  assert "env.name = 'cartpole' " in shown.stdout and not os.listdir(tmp_path)
  refused = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True,
                           timeout=120)
  assert refused.returncode == 2 and refused.stderr.strip().splitlines() == [
      'error: --logdir: required: the directory the run writes to (the same one again '
      'resumes it); only --print_config goes without one'], refused.stderr
  assert not os.listdir(tmp_path)


def test_a_football_config_without_gfootball_is_one_line_naming_the_install(tmp_path):
  # A `gfootball` package that cannot be imported stands in for one never installed.
  (tmp_path / 'absent' / 'gfootball').mkdir(parents=True)
  (tmp_path / 'absent' / 'gfootball' / '__init__.py').write_text(
      "raise ImportError('no gfootball here')\n")
  logdir = tmp_path / 'never_created'
  path = os.pathsep.join([str(tmp_path / 'absent'), os.environ.get('PYTHONPATH', '')])
  result = helpers.run_launch(logdir, config='football_academy_vtrace', timeout=120,
                              env={'PYTHONPATH': path})
  assert result.returncode == 2, result.stderr[-2000:]
  (line,) = result.stderr.strip().splitlines()
  assert line.startswith('error: gfootball is not installed') and (
      'scripts/install_football.sh' in line), line
  assert not os.path.exists(logdir)


def test_bfloat16_on_a_cpu_without_avx512_is_one_line_before_launch(tmp_path):
  # A sitecustomize gives the launcher an AVX2-only CPU's flags, whatever CPU runs this.
  (tmp_path / 'avx2').mkdir()
  (tmp_path / 'avx2' / 'sitecustomize.py').write_text(
      'from seed_graph.algos import precision\n'
      "precision.cpu_flags = lambda *_: frozenset({'sse4_2', 'avx', 'avx2', 'fma'})\n")
  logdir = tmp_path / 'never_created'
  path = os.pathsep.join([str(tmp_path / 'avx2'), helpers.REPO,
                          os.environ.get('PYTHONPATH', '')])
  result = helpers.run_launch(logdir, '--config.network.compute_dtype=bfloat16',
                              config='atari_vtrace_fast', timeout=120,
                              env={'PYTHONPATH': path})
  assert result.returncode == 2, result.stderr[-2000:]
  (line,) = result.stderr.strip().splitlines()
  assert line.startswith("error: network.compute_dtype='bfloat16' cannot run on this "
                         'machine: the CPU has no AVX-512') and "use 'auto'" in line, line
  assert not os.path.exists(logdir)
