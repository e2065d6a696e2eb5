r"""The Atari benchmark suite: game x seed to a frame budget, then the results page.

  python -m benchmarks.atari_suite [--config=atari_cleanrl_vtrace] \
      [--games=Pong,Breakout,BeamRider] [--seeds=0,1] [--frames=40000000] \
      [--root=runs/atari] [--carry_dir=carried_runs/atari] [--output_dir=docs/results] \
      [--report_only] [--eval_episodes=10] \
      [--variant=NAME --config.KEY=VALUE ...]

A smoke run (about a minute): `--games=Pong --seeds=0 --frames=20000 --root=/tmp/suite
--output_dir=/tmp/suite --config.actors.num=1 --config.actors.env_batch_size=4
--config.evaluators.num=0 --config.learner.batch_size=4 --config.learner.minibatches=1
--config.logging.interval_seconds=1`.

Runs one training at a time (`python -m seed_graph.launch.local`, output in
`<run>/launcher.out`), each in its own logdir `<root>/<game>/seed<k>` (another config's
`<root>/<game>/<config>-seed<k>`, e.g. `atari_cleanrl_r2d2-seed0`; a named variant's
`<root>/<game>/<variant>-seed<k>`: a setting tried beside the preset, e.g.
`--variant=epochs2 --config.learner.epochs=2`; all share the root and the page) with
`env.game`, `seed` (which seeds the network's initialization and the environments) and
`total_environment_frames` set. A run that has reached the budget is skipped; one that
was interrupted (Ctrl-C or `kill` here stops the current run in order, saving)
resumes from its checkpoint the next time, so the suite can be run again until it is
complete; so does one ended abruptly (SIGKILL, the machine gone), from its last periodic
checkpoint (`logging.checkpoint_interval_seconds`). With `--frozen_code` each launch runs
a copy of the committed HEAD (`runs/code/<commit>`), which edits to the checkout cannot
reach while it trains: develop beside a long run, commit, and the next launch takes the
new commit. The default root, `runs/atari`, is
inside the checkout and ignored by git; a checkout that comes back as a clone of what was
committed has lost it, so each run the suite stops is also packed, its newest checkpoint
and records, into a file git tracks (`carried_runs/atari/<game>/<run>.tar.xz`, see
`benchmarks.carried_runs`): commit it, and the next launch on any clone unpacks it and
resumes. Each
launch appends the checkout's commit and the machine's CPU kind to `<run>/suite.json`
(the page shows the kinds a run trained on: its speed and wall-clock depend on them), and a run resumed with a
different `--frames` records the change there (the learning rate decays linearly to 0 at
the budget, so the page shows it beside the run). A finished run's final checkpoint then
plays `--eval_episodes` games (`python -m seed_graph.launch.eval`, into `<run>/eval.json`),
once: the page's evaluated return.

After every run, and alone with `--report_only`, `benchmarks.atari_report` writes
`<output_dir>/atari.md`, `atari.png` and a JSON of each algorithm's runs (`atari.json`,
`r2d2.json`) from every run under `--root`, keeping the runs of the JSONs already there
that have no logdir under `--root`.
"""

import json
import os
import re
import signal
import subprocess
import sys
import time
from typing import Optional, Tuple

from absl import app
from absl import flags

from benchmarks import atari_report
from benchmarks import carried_runs
from benchmarks import code_snapshots
from seed_graph.algos import precision
from seed_graph.launch.runs import config_args

_CONFIG = flags.DEFINE_string('config', 'atari_cleanrl_vtrace',
                              'Experiment config (overridden by --config.KEY=VALUE).')
_GAMES = flags.DEFINE_list('games', ['Pong', 'Breakout', 'BeamRider'], 'Atari games.')
_SEEDS = flags.DEFINE_list('seeds', ['0', '1'], 'Seeds, one run each per game.')
_FRAMES = flags.DEFINE_integer('frames', 40_000_000, 'Environment frames per run.')
# Inside the checkout, which git ignores (.gitignore): a logdir kept beside it was lost
# with its machine, and one inside it with a checkout cloned afresh (hence carry_dir).
_ROOT = flags.DEFINE_string('root', 'runs/atari', 'Where the runs\' logdirs go.')
# Tracked by git: a run's resume point that outlives its logdir (benchmarks.carried_runs).
DEFAULT_CARRY_DIR = 'carried_runs/atari'
_OUTPUT = flags.DEFINE_string('output_dir', 'docs/results', 'Where the page goes.')
_CARRY_DIR = flags.DEFINE_string(
    'carry_dir', None, 'Where each stopped run is packed for git to carry, and unpacked '
    'from before a launch (benchmarks.carried_runs); "" packs nothing. Default: '
    f'{DEFAULT_CARRY_DIR} with the default --root, nothing with another.')
_REPORT_ONLY = flags.DEFINE_bool('report_only', False, 'Write the page; train nothing.')
_VARIANT = flags.DEFINE_string('variant', '', 'A name for a setting other than the '
                               'config as it is (its --config.KEY=VALUE overrides): part '
                               'of each run\'s directory, a row of its own on the page.')
_FROZEN = flags.DEFINE_bool(
    'frozen_code', False, 'Train from a copy of the committed HEAD (runs/code/<commit>), '
    'so that editing the checkout meanwhile cannot reach the run: its nodes start again '
    'from the code it started with after a crash or a planned restart.')
_EVAL_EPISODES = flags.DEFINE_integer(
    'eval_episodes', 10, 'Games a finished run\'s final checkpoint plays (launch.eval, '
    'the config\'s evaluation epsilon) for the page\'s evaluated return; 0: none.',
    lower_bound=0)
_OVERRIDES = []  # The KEY=VALUE of every --config.KEY=VALUE, in order.

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _commit() -> str:
  """The checkout's commit, with '+changes' if its tracked files differ from it."""
  def git(*args):
    return subprocess.run(['git', *args], cwd=REPO, capture_output=True, text=True)
  head = git('rev-parse', '--short', 'HEAD')
  if head.returncode:
    return 'unknown'
  dirty = git('diff', '--quiet', 'HEAD').returncode != 0
  return head.stdout.strip() + ('+changes' if dirty else '')


def _suite_record(logdir: str) -> Optional[dict]:
  """The run's `suite.json`, or None before its first launch."""
  path = os.path.join(logdir, atari_report.SUITE_FILE)
  if not os.path.exists(path):
    return None
  with open(path) as f:
    return json.load(f)


def _record_launch(logdir: str, game: str, seed: int, commit: str) -> None:
  record = _suite_record(logdir)
  if record is None:
    record = {'config': config_args.setting_name(_CONFIG.value), 'overrides': _OVERRIDES,
              'variant': _VARIANT.value, 'game': game, 'seed': seed,
              'frames': _FRAMES.value, 'launches': []}
  elif record['frames'] != _FRAMES.value:  # The learning rate's decay follows the budget.
    record.setdefault('budget_changes', []).append(
        {'at_frames': atari_report.frames_trained(logdir), 'from': record['frames'],
         'to': _FRAMES.value})
    record['frames'] = _FRAMES.value
  record['launches'].append({'commit': commit, 'time': time.strftime('%Y-%m-%d %H:%M'),
                             'overrides': _OVERRIDES, 'cpu': precision.cpu_kind()})
  with open(os.path.join(logdir, atari_report.SUITE_FILE), 'w') as f:
    json.dump(record, f, indent=1)


def check_setting(game: str, seed: int) -> None:
  """Exits with one line if the run's directory holds a run of another setting."""
  record = _suite_record(run_dir(game, seed))
  config = config_args.setting_name(_CONFIG.value)
  if record and (config_args.setting_name(record['config']), record['overrides']) != (
      config, _OVERRIDES):
    sys.exit(f'error: {run_dir(game, seed)} holds a run of --config={record["config"]} '
             f'with overrides {record["overrides"]}, not --config={_CONFIG.value} with '
             f'{_OVERRIDES}: give this setting a --variant of its own')


def run_dir(game: str, seed: int) -> str:
  """`<root>/<game>/[<config>-][<variant>-]seed<k>`: the config's name only where it is
  not the suite's default, so another algorithm's runs share the root and the page."""
  config = config_args.setting_name(_CONFIG.value)
  parts = [re.sub(r'[^\w.=-]', '_', os.path.splitext(config)[0])
           ] if config != _CONFIG.default else []
  parts += [_VARIANT.value] if _VARIANT.value else []
  return os.path.join(_ROOT.value, game, '-'.join(parts + [f'seed{seed}']))


def carried_file(game: str, seed: int) -> Optional[str]:
  """Where the run is carried (`<carry_dir>/<game>/<run>.tar.xz`), or None."""
  carry_dir = _CARRY_DIR.value
  if carry_dir is None:
    carry_dir = DEFAULT_CARRY_DIR if _ROOT.value == _ROOT.default else ''
  if not carry_dir:
    return None
  run = os.path.relpath(run_dir(game, seed), _ROOT.value)
  return os.path.join(carry_dir, run + carried_runs.SUFFIX)


def _code() -> Tuple[str, Optional[str], dict]:
  """(the commit a launch runs, the frozen copy of it to run from or None, the
  environment to run with)."""
  commit, tree, env = _commit(), None, dict(os.environ)
  if _FROZEN.value:
    commit, tree = code_snapshots.frozen_head(os.path.join(REPO, 'runs', 'code'))
    env['PYTHONPATH'] = os.pathsep.join([tree, *filter(None, [env.get('PYTHONPATH')])])
  return commit, tree, env


def train(game: str, seed: int) -> int:
  """Trains (or resumes) one run to the budget; the launcher's exit code."""
  logdir = os.path.abspath(run_dir(game, seed))
  os.makedirs(logdir, exist_ok=True)
  commit, tree, env = _code()
  config = _CONFIG.value  # A preset's name, or a file: then by its path from here.
  if config.endswith('.py'):
    config = os.path.abspath(config)
  _record_launch(logdir, game, seed, commit)
  command = [sys.executable, '-m', 'seed_graph.launch.local', f'--config={config}',
             f'--logdir={logdir}', f'--config.env.game={game}', f'--config.seed={seed}',
             f'--config.total_environment_frames={_FRAMES.value}',
             *[f'--config.{override}' for override in _OVERRIDES]]
  print(f'[atari_suite] {game} seed {seed}: {" ".join(command[1:])}'
        + (f' (from {tree})' if _FROZEN.value else ''), flush=True)
  with open(os.path.join(logdir, 'launcher.out'), 'a') as output:
    launcher = subprocess.Popen(command, cwd=tree, env=env, stdout=output,
                                stderr=subprocess.STDOUT)
    try:
      return launcher.wait()
    except KeyboardInterrupt:
      launcher.send_signal(signal.SIGINT)  # One SIGINT: the launcher stops in order.
      launcher.wait()
      raise


def evaluate(game: str, seed: int) -> int:
  """Plays `--eval_episodes` games with a finished run's final checkpoint, unless its
  `eval.json` already holds as many; launch.eval's exit code."""
  logdir = os.path.abspath(run_dir(game, seed))
  done = atari_report.evaluation(logdir)
  if not _EVAL_EPISODES.value or (done and done['episodes'] >= _EVAL_EPISODES.value):
    return 0
  _, tree, env = _code()
  print(f'[atari_suite] {game} seed {seed}: its final checkpoint plays '
        f'{_EVAL_EPISODES.value} games', flush=True)
  with open(os.path.join(logdir, 'launcher.out'), 'a') as output:
    return subprocess.call([sys.executable, '-m', 'seed_graph.launch.eval',
                            f'--logdir={logdir}', f'--episodes={_EVAL_EPISODES.value}'],
                           cwd=tree, env=env, stdout=output, stderr=subprocess.STDOUT)


def _unpack_carried(game: str, seed: int) -> None:
  """Puts the carried run in place of a logdir that is missing or behind it."""
  carried, run = carried_file(game, seed), run_dir(game, seed)
  said = carried and carried_runs.unpack(carried, run, atari_report.frames_trained(run))
  if said:
    print(f'[atari_suite] {game} seed {seed}: {said}', flush=True)
    check_setting(game, seed)


def _pack_carried(game: str, seed: int) -> None:
  carried, run = carried_file(game, seed), run_dir(game, seed)
  if carried and carried_runs.pack(run, carried, atari_report.frames_trained(run)):
    print(f'[atari_suite] {game} seed {seed}: packed into {carried}; commit it to carry '
          'the run to another checkout', flush=True)


def finish(game: str, seed: int) -> None:
  """Trains (or resumes) one run to the budget and evaluates it, then packs it for git to
  carry; exits with one line if either fails or is interrupted (the run stopped, saved
  and packed)."""
  run = run_dir(game, seed)
  _unpack_carried(game, seed)
  try:
    trained = atari_report.frames_trained(run) >= _FRAMES.value
    if trained:
      print(f'[atari_suite] {game} seed {seed}: complete', flush=True)
    code = 0 if trained else train(game, seed)
    failed = code and (f'error: {game} seed {seed} failed (launcher exit code {code}); '
                       f'see {os.path.join(run, "launcher.out")}')
    code = 0 if failed else evaluate(game, seed)
    failed = failed or code and (
        f'error: evaluating {game} seed {seed} failed (launch.eval exit code {code}); '
        f'see {os.path.join(run, "launcher.out")}')
  except KeyboardInterrupt:
    _pack_carried(game, seed)
    sys.exit(f'[atari_suite] interrupted: {game} seed {seed} stopped and saved; the '
             'same command resumes it')
  _pack_carried(game, seed)
  if failed:
    sys.exit(failed)


def check_flags(seeds) -> None:
  """Exits with one line, before any training, on a bad config, variant or setting."""
  config_args.load(_CONFIG.value, _OVERRIDES)
  if not re.fullmatch(r'[\w.=-]*', _VARIANT.value):
    sys.exit(f'error: --variant={_VARIANT.value!r}: letters, digits and _.=- only')
  for game in _GAMES.value:
    for seed in seeds:
      check_setting(game, seed)


def stop_on_signals() -> None:
  """SIGINT and SIGTERM both stop the current run in order (`train`'s KeyboardInterrupt).
  A shell without job control (`nohup ... &` in a script) starts the suite with SIGINT
  ignored, which Python keeps; and SIGTERM would end the suite alone, its launcher
  training on."""
  def interrupt(signum, frame):
    raise KeyboardInterrupt(signal.Signals(signum).name)
  signal.signal(signal.SIGINT, signal.default_int_handler)
  signal.signal(signal.SIGTERM, interrupt)


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f'unexpected arguments: {argv[1:]}')
  seeds = [int(seed) for seed in _SEEDS.value]
  if not _REPORT_ONLY.value:
    check_flags(seeds)
    stop_on_signals()
    for game in _GAMES.value:
      for seed in seeds:
        finish(game, seed)
        atari_report.write(_ROOT.value, _OUTPUT.value)
  paths = atari_report.write(_ROOT.value, _OUTPUT.value)
  print(f'[atari_suite] wrote {", ".join(paths)}', flush=True)


if __name__ == '__main__':
  app.run(main, flags_parser=config_args.flags_parser(_OVERRIDES))
