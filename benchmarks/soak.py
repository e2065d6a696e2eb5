r"""A run of a whole program: memory of every node over time, then a stop.

  python -m benchmarks.soak [--minutes=30] [--config=cartpole_vtrace] \
      [--actors=4] [--sample_seconds=30] [--out=/tmp/soak.json] [--logdir=DIR] \
      [--config.KEY=VALUE ...]

e.g. Atari R2D2's memory, every second for 10 minutes, with the config's own actors:
`--config=atari_r2d2 --actors=0 --minutes=10 --sample_seconds=1`. A smoke run
(under a minute): `--minutes=0.4 --sample_seconds=2 --actors=1
--config.evaluators.num=0 --config.logging.interval_seconds=1`.

Launches `python -m seed_graph.launch.local` (local_mp, supervised) on `--config` with
`--actors` actors (0: the config's `actors.num`) and no end of frames, samples the
resident memory (RSS) of each node process every `--sample_seconds`, then sends Ctrl-C
(SIGINT) and times the stop. Reports, per node, RSS at minute 5 (half the run if it is
shorter) and at the end, the growth between them, the slope of its RSS from minute 5,
how often the node was replaced (a new pid: a planned restart or a crash), and its growth
projected to 24 hours (the target: under 10% per process): the slope carried on, or, for
a node replaced in the window, since each replacement starts it afresh, the highest it
reached over its RSS at minute 5. Also the peak RSS of each node and of all of them
together, the frames trained and frames/s, the learner steps, the replay's size (R2D2),
the stop time, whether a final checkpoint was written, whether any process was left
behind, and the launcher's lines that name an error. Sampling ends early if the program
ends by itself. Writes every sample to `--out` as JSON; prints one JSON line.
"""

import json
import os
import tempfile
import time

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '2')

from absl import app  # pylint: disable=g-import-not-at-top
from absl import flags
import psutil

from benchmarks import launched  # pylint: disable=g-import-not-at-top
from benchmarks.memory_growth import growth_report, peaks  # pylint: disable=g-import-not-at-top
from benchmarks.node_processes import node_processes  # pylint: disable=g-import-not-at-top
from seed_graph.nodes.learner import metrics as metrics_lib  # pylint: disable=g-import-not-at-top

_MINUTES = flags.DEFINE_float('minutes', 30, 'How long to train before stopping.')
_CONFIG = flags.DEFINE_string('config', 'cartpole_vtrace', 'Experiment config, a preset or a '
                              '.py file (overridden by --config.KEY=VALUE).')
_ACTORS = flags.DEFINE_integer('actors', 4, "Actor processes; 0: the config's actors.num.")
_SAMPLE_SECONDS = flags.DEFINE_float('sample_seconds', 30, 'Seconds between samples.')
_OUT = flags.DEFINE_string('out', '/tmp/soak.json', 'Where the samples go.')
_LOGDIR = flags.DEFINE_string('logdir', None, 'The run\'s logdir; default: a new '
                              'temporary directory.')
_OVERRIDES = []  # The KEY=VALUE of every --config.KEY=VALUE, in order.
_BASE_MINUTE = 5.0


def node_rss(launcher: psutil.Process) -> tuple:
  """RSS in MiB of the launcher and each node process (by node name), and their pids."""
  rss, pids = {}, {}
  for name, process in node_processes(launcher).items():
    try:
      rss[name] = process.memory_info().rss / 2**20
      pids[name] = process.pid
    except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
      pass
  return rss, pids


def _rates(logdir: str) -> dict:
  """Progress from the run's metrics.jsonl: last values, frames/s over the records."""
  records = launched.records(logdir)
  last = metrics_lib.last_record(logdir) or {}
  # `wall_time` counts from its learner process's start: a restarted learner's records
  # start a new stretch.
  frames = span = 0.0
  for before, after in zip(records, records[1:]):
    if after['wall_time'] > before['wall_time']:
      frames += after['frames'] - before['frames']
      span += after['wall_time'] - before['wall_time']
  return {
      'frames': last.get('frames', 0), 'learner_steps': last.get('learner_steps', 0),
      'frames_per_second': round(frames / span, 1) if span else None,
      'episode_return': last.get('episode_return'), 'replay_size': last.get('replay_size'),
      'sequences_written': last.get('sequences_written')}


def _sample(program: launched.LaunchedProgram) -> tuple:
  """Every node's RSS each `--sample_seconds` for `--minutes` or until the program ends:
  (the samples, the node processes last seen)."""
  samples, nodes, start = [], [], time.time()
  while time.time() - start < _MINUTES.value * 60 and program.process.poll() is None:
    time.sleep(_SAMPLE_SECONDS.value)
    try:
      rss, pids = node_rss(program.launcher)
      nodes = program.launcher.children(recursive=True)
    except psutil.NoSuchProcess:
      break  # The launcher ended (the run ended, or failed).
    samples.append({'minute': (time.time() - start) / 60, 'rss': rss, 'pids': pids})
    print(f"minute {samples[-1]['minute']:.1f}: " + ', '.join(
        f'{k}={v:.0f}' for k, v in sorted(samples[-1]['rss'].items())), flush=True)
  return samples, nodes


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f'unexpected arguments: {argv[1:]}')
  logdir = _LOGDIR.value or tempfile.mkdtemp(prefix='soak-')
  os.makedirs(logdir, exist_ok=True)
  actors = [f'actors.num={_ACTORS.value}'] if _ACTORS.value else []
  program = launched.LaunchedProgram(_CONFIG.value, actors + _OVERRIDES, logdir)
  launcher, stop_seconds = program.process, None
  try:
    samples, nodes = _sample(program)
    ended_by_itself = launcher.poll() is not None
    if not ended_by_itself:
      stop_start = time.time()
      program.stop(grace_seconds=300)
      stop_seconds = round(time.time() - stop_start, 1)
  finally:
    if launcher.poll() is None:
      launcher.kill()
  time.sleep(1)
  left = []
  for node in nodes:
    try:
      if node.is_running() and node.status() != psutil.STATUS_ZOMBIE:
        left.append(node.pid)
    except psutil.NoSuchProcess:
      pass
  with open(os.path.join(logdir, 'launcher.out'), errors='replace') as f:
    errors = [line.rstrip() for line in f if 'Traceback' in line or 'Error' in line]
  report = {'minutes': _MINUTES.value, 'config': _CONFIG.value, 'overrides': _OVERRIDES,
            'actors': _ACTORS.value or 'config', **_rates(logdir),
            'launcher_exit_code': launcher.returncode, 'ended_by_itself': ended_by_itself,
            'stop_seconds': stop_seconds,
            'final_checkpoint': os.path.exists(os.path.join(logdir, 'checkpoints',
                                                            'checkpoint')),
            'processes_left': left, 'samples': len(samples),
            'rss_from_minute_5': growth_report(samples, _BASE_MINUTE) if samples else {},
            'peak': peaks(samples), 'errors_in_output': errors[:10], 'logdir': logdir}
  with open(_OUT.value, 'w') as f:
    json.dump(dict(report, samples=samples), f)
  print(json.dumps(report))


if __name__ == '__main__':
  from seed_graph.launch.runs import config_args  # pylint: disable=g-import-not-at-top
  app.run(main, flags_parser=config_args.flags_parser(_OVERRIDES))
