r"""Trains the preset `football_academy_vtrace` until its mean return reaches 0.8 or 2M
frames pass, then prints frames, wall time and the return curve.

  python -m benchmarks.football_academy [--logdir=/tmp/football_academy] [--target=0.8]
      [--metric=eval_episode_return|episode_return] [--max_frames=2000000] \
      [--config.KEY=VALUE ...]

A smoke run (under a minute; stops at the first episode's end):
`--metric=episode_return --target=0 --max_frames=3000 --config.actors.num=1
--config.actors.env_batch_size=2 --config.evaluators.num=0 --config.learner.batch_size=2
--config.logging.interval_seconds=1`.

The default metric is the evaluators' mean return (greedy policy, last 10 episodes);
`episode_return` is the training actors' (sampled actions, last 100 episodes).

Runs the program with `python -m seed_graph.launch.local` (local multiprocessing; its
output in `<logdir>/launcher.out`), `--config.KEY=VALUE` passed on, and stops it with
SIGINT once the target is reached. Prints JSON (with the launcher's exit code; a
launcher that failed fails the benchmark), then the curve as a table.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

from absl import app
from absl import flags

_LOGDIR = flags.DEFINE_string('logdir', '/tmp/seed_graph_football_academy', 'Log directory '
                              '(emptied first).')
_TARGET = flags.DEFINE_float('target', 0.8, 'Mean training return to stop at.')
_MAX_FRAMES = flags.DEFINE_integer('max_frames', 2_000_000, 'Frame budget.')
_METRIC = flags.DEFINE_enum('metric', 'eval_episode_return',
                            ['eval_episode_return', 'episode_return'], 'Return to stop at.')
_OVERRIDES = []  # The KEY=VALUE of every --config.KEY=VALUE, in order.

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _metrics(path):
  if not os.path.exists(path):
    return []
  with open(path) as f:
    return [json.loads(line) for line in f if line.strip()]


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f'unexpected arguments: {argv[1:]}')
  shutil.rmtree(_LOGDIR.value, ignore_errors=True)
  os.makedirs(_LOGDIR.value)
  command = [sys.executable, '-m', 'seed_graph.launch.local',
             '--config=football_academy_vtrace', f'--logdir={_LOGDIR.value}',
             f'--config.total_environment_frames={_MAX_FRAMES.value}',
             *[f'--config.{override}' for override in _OVERRIDES]]
  start = time.time()
  with open(os.path.join(_LOGDIR.value, 'launcher.out'), 'w') as output:
    launcher = subprocess.Popen(command, cwd=REPO, stdout=output, stderr=subprocess.STDOUT)
  path = os.path.join(_LOGDIR.value, 'metrics.jsonl')
  reached = None
  while launcher.poll() is None:
    time.sleep(1)
    rows = _metrics(path)
    # A record before the first episode ended has no return (None), not a return of 0.
    hits = [r for r in rows
            if r.get(_METRIC.value) is not None and r[_METRIC.value] >= _TARGET.value]
    if hits and reached is None:
      reached = hits[0]
      launcher.send_signal(signal.SIGINT)
  launcher.wait()
  rows = _metrics(path)
  curve = [(r['frames'], r.get('episode_return'), r.get('eval_episode_return'))
           for r in rows]
  result = {
      'overrides': _OVERRIDES,
      'launcher_exit_code': launcher.returncode,
      'metric': _METRIC.value,
      'target': _TARGET.value,
      'reached': reached is not None,
      'frames_at_target': reached['frames'] if reached else None,
      'wall_seconds_at_target': round(reached['wall_time'], 1) if reached else None,
      'final_frames': rows[-1]['frames'] if rows else 0,
      'wall_seconds_total': round(time.time() - start, 1),
      'curve_every_10th': curve[::10] + curve[-1:],
  }
  print(json.dumps(result))
  print(f"{'frames':>10} {'train':>8} {'eval':>8}")
  for frames, ret, eval_ret in curve[::max(1, len(curve) // 20)] + curve[-1:]:
    fmt = lambda v: '-' if v is None else f'{v:.3f}'
    print(f'{frames:>10} {fmt(ret):>8} {fmt(eval_ret):>8}')
  if launcher.returncode:
    sys.exit(f'error: the launcher failed (exit code {launcher.returncode}); see '
             f'{os.path.join(_LOGDIR.value, "launcher.out")}')


if __name__ == '__main__':
  from seed_graph.launch.runs import config_args  # pylint: disable=g-import-not-at-top
  app.run(main, flags_parser=config_args.flags_parser(_OVERRIDES))
