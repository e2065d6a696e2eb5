"""`benchmarks.atari_suite`: a run stopped with SIGTERM saves, is packed for git to carry,
and resumes from the packed file alone to a larger budget, the results page shows the change, a complete run is not trained again, and
another config's runs have directories of their own. Pong on the smallest settings."""

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys

from benchmarks import carried_runs
from seed_graph.algos import precision
from tests import helpers
from tests.benchmark_runs import TIMEOUT, run_benchmark


def _kill_marked(marker, process):
  process.kill()  # A no-op once it has exited.
  for leftover in helpers.marked_processes(marker):
    with contextlib.suppress(Exception):  # It may have just exited.
      leftover.kill()


def _killed_once_training(suite, run) -> int:
  """Starts the suite with SIGINT ignored, SIGTERMs it once the learner has stepped, and
  checks that it stopped saving, leaving no process; the frames trained."""
  marker = f'atari-suite-{os.getpid()}'
  suite_process = subprocess.Popen(
      [sys.executable, '-m', 'benchmarks.atari_suite', *suite[1:]], cwd=helpers.REPO,
      env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL='2', **{helpers.MARKER_VARIABLE: marker}),
      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
      preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
  try:
    assert helpers.wait_for(lambda: any(m['learner_steps'] for m in helpers.read_metrics(run)),
                            TIMEOUT), 'no learner step'
    suite_process.terminate()
    _, errors = suite_process.communicate(timeout=TIMEOUT)
  except BaseException:
    _kill_marked(marker, suite_process)
    raise
  nothing_left = helpers.wait_for(lambda: not helpers.marked_processes(marker), 30)
  _kill_marked(marker, suite_process)
  assert nothing_left, 'the launcher outlived the suite'
  assert suite_process.returncode == 1 and 'stopped and saved' in errors.splitlines()[-1]
  assert helpers.latest_checkpoint(run)
  frames = helpers.read_metrics(run)[-1]['frames']
  assert 0 < frames < 20000  # Stopped, not finished.
  return frames


def test_atari_suite(tmp_path):
  helpers.needs('ale_py')
  root, output = tmp_path / 'runs', tmp_path / 'results'
  carried = tmp_path / 'carried' / 'Pong' / 'seed3.tar.xz'
  suite = ('atari_suite', '--games=Pong', '--seeds=3', f'--root={root}',
           f'--carry_dir={tmp_path / "carried"}', f'--output_dir={output}',
           '--config.actors.num=1',
           '--config.actors.env_batch_size=4', '--config.evaluators.num=0',
           '--config.learner.batch_size=4', '--config.learner.minibatches=2',
           '--config.logging.interval_seconds=1', '--eval_episodes=1')
  # Started as `nohup ... &` starts it (SIGINT ignored), `kill` stops the run in order.
  interrupted = _killed_once_training(suite + ('--frames=20000',), root / 'Pong' / 'seed3')
  # Packed as it stopped; a clone of the repository has the packed file, not the logdir:
  # the run resumes from the file, to a larger budget (the change is on the page).
  assert carried_runs.manifest(str(carried))['frames'] == interrupted
  shutil.rmtree(root)
  suite += ('--frames=24000',)
  out = run_benchmark(*suite)
  assert f'Pong seed 3: unpacked {carried} ({interrupted} frames' in out
  assert 'resuming from ' in (root / 'Pong' / 'seed3' / 'launcher.out').read_text()
  with open(output / 'atari.json') as f:
    (run,) = json.load(f)['runs']
  assert (run['game'], run['seed'], run['budget']) == ('Pong', 3, 24000)
  assert run['frames'] >= 24000 and run['wall_clock_seconds'] > 0
  assert -21 <= run['final_return'] <= 21 and run['frames_to_anchor'] is None
  assert run['config'] == 'atari_cleanrl_vtrace' and run['commit']
  assert run['cpus'] == [precision.cpu_kind()]  # Both launches ran here.
  assert run['budget_changes'] == [{'at_frames': interrupted, 'from': 20000, 'to': 24000}]
  # The finished run's final checkpoint played its game (an untrained agent: no point).
  evaluated = json.loads((root / 'Pong' / 'seed3' / 'eval.json').read_text())
  assert evaluated['checkpoint'].endswith(helpers.latest_checkpoint(root / 'Pong' / 'seed3'))
  assert run['evaluated'] == {'mean_return': evaluated['mean_return'], 'std_return': 0.0,
                              'episodes': 1, 'epsilon': evaluated['epsilon']}
  assert -21 <= evaluated['mean_return'] <= 0
  assert carried_runs.manifest(str(carried))['frames'] == run['frames']  # Packed again.
  # Another setting in that run's directory fails before training, naming the way out.
  other = subprocess.run([sys.executable, '-m', 'benchmarks.atari_suite', *suite[1:],
                          '--config.learner.epochs=2'], cwd=helpers.REPO,
                         capture_output=True, text=True, timeout=TIMEOUT)
  assert other.returncode != 0 and '--variant' in other.stderr.splitlines()[-1]
  assert helpers.read_metrics(root / 'Pong' / 'seed3')[-1]['frames'] == run['frames']
  page = (output / 'atari.md').read_text()
  assert '| Pong | atari_cleanrl_vtrace | 1 | 0.024M |' in page
  assert (output / 'atari.png').stat().st_size > 0
  assert f'budget 0.02M until {interrupted / 1e6:.2f}M, then 0.024M' in page
  assert ('atari_suite --config=atari_cleanrl_vtrace --games=Pong --seeds=3 '
          '--frames=24000 --config.actors.num=1 ') in page  # The command for the row.
  # A complete run is not trained again; the report is written again.
  out = run_benchmark(*suite)
  assert 'Pong seed 3: complete' in out and 'plays' not in out  # Evaluated once.
  with open(root / 'Pong' / 'seed3' / 'suite.json') as f:
    assert len(json.load(f)['launches']) == 2


def test_another_configs_runs_have_directories_of_their_own(tmp_path):
  # A run of the default config in seed0, an R2D2 run in atari_cleanrl_r2d2-seed0: the
  # R2D2 suite checks its own directory (here holding a run of another setting, so it
  # stops before training, naming that directory), not the V-trace run's.
  root = tmp_path / 'runs'
  for directory, config in (('seed0', 'atari_cleanrl_vtrace'),
                            ('atari_cleanrl_r2d2-seed0', 'atari_cleanrl_vtrace')):
    (root / 'Pong' / directory).mkdir(parents=True)
    (root / 'Pong' / directory / 'suite.json').write_text(json.dumps(
        {'config': config, 'overrides': [], 'game': 'Pong', 'seed': 0, 'launches': []}))
  refused = subprocess.run(
      [sys.executable, '-m', 'benchmarks.atari_suite', '--config=atari_cleanrl_r2d2',
       '--games=Pong', '--seeds=0', f'--root={root}', f'--output_dir={tmp_path}'],
      cwd=helpers.REPO, capture_output=True, text=True, timeout=TIMEOUT)
  assert refused.returncode != 0
  assert refused.stderr.splitlines()[-1].startswith(
      f'error: {root / "Pong" / "atari_cleanrl_r2d2-seed0"} holds a run of '
      '--config=atari_cleanrl_vtrace')
