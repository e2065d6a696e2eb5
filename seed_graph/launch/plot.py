r"""Learning curves of one run or several, from their `metrics.jsonl`, into a PNG.

  python -m seed_graph.launch.plot logs/pong [logs/pong_resnet ...] [--output=curves.png]

Left: mean episode return (over the run's `logging.return_window` training and
`logging.eval_return_window` evaluation episodes, read from its `config.json`; training
solid, evaluation dashed)
against environment frames. Right: training frames/s against wall time, in minutes of
training (a resumed run's segments follow one another). One colour per run, labelled
with its directory's name. The default output is `<logdir>/curves.png` for one run and
`curves.png` for several.
"""

import json
import os
import sys
from typing import Dict, List, Sequence

from absl import app
from absl import flags

_OUTPUT = flags.DEFINE_string('output', None, 'The PNG to write.')


class PlotError(ValueError):
  """A run that cannot be plotted, said in one line."""


def read_curves(logdir: str) -> Dict[str, List[float]]:
  """The series of one run: frames, returns, eval returns, fps, minutes."""
  path = os.path.join(logdir, 'metrics.jsonl')
  if not os.path.exists(path):
    raise PlotError(f'{path} does not exist: not a training run\'s logdir')
  curves = {key: [] for key in ('frames', 'return', 'eval_return', 'fps', 'minutes')}
  offset = previous = 0.0
  with open(path) as f:
    for line in f:
      if not line.strip():
        continue
      record = json.loads(line)
      wall_time = record.get('wall_time', 0.0)
      if wall_time < previous:  # The learner restarted: its clock starts again.
        offset += previous
      previous = wall_time
      curves['frames'].append(record.get('frames', 0))
      curves['return'].append(record.get('episode_return'))
      curves['eval_return'].append(record.get('eval_episode_return'))
      curves['fps'].append(record.get('fps'))
      curves['minutes'].append((offset + wall_time) / 60)
  if not curves['frames']:
    raise PlotError(f'{path} has no records yet')
  return curves


def _windows(logdir: str) -> Dict[str, str]:
  """', last N' for the training and evaluation curves' labels ('' if unknown)."""
  path = os.path.join(logdir, 'config.json')
  logging_config = {}
  if os.path.exists(path):
    with open(path) as f:
      logging_config = json.load(f).get('logging', {})
  train = logging_config.get('return_window')
  evaluation = logging_config.get('eval_return_window', train)
  return {kind: f', last {window}' if window else ''
          for kind, window in (('train', train), ('eval', evaluation))}


def _points(xs, ys):
  pairs = [(x, y) for x, y in zip(xs, ys) if y is not None]
  return [p[0] for p in pairs], [p[1] for p in pairs]


def plot(logdirs: List[str], output: str):
  import matplotlib  # pylint: disable=g-import-not-at-top
  matplotlib.use('Agg')  # Files only; no display needed.
  from matplotlib import pyplot  # pylint: disable=g-import-not-at-top
  figure, (returns, speed) = pyplot.subplots(1, 2, figsize=(13, 4.5))
  for index, logdir in enumerate(logdirs):
    curves = read_curves(logdir)
    color = f'C{index % 10}'
    name = os.path.basename(os.path.normpath(logdir))
    windows = _windows(logdir)
    returns.plot(*_points(curves['frames'], curves['return']), color=color,
                 label=f'{name} (training{windows["train"]})')
    returns.plot(*_points(curves['frames'], curves['eval_return']), color=color,
                 linestyle='--', label=f'{name} (evaluation{windows["eval"]})')
    speed.plot(*_points(curves['minutes'], curves['fps']), color=color, label=name)
  returns.set(xlabel='environment frames', ylabel='mean episode return',
              title='Return')
  speed.set(xlabel='minutes of training', ylabel='training frames/s', title='Speed')
  for axes in (returns, speed):
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8)
  figure.tight_layout()
  figure.savefig(output, dpi=100)
  pyplot.close(figure)


def main(argv: Sequence[str]):
  logdirs = argv[1:]
  if not logdirs:
    raise app.UsageError('name at least one logdir')
  output = _OUTPUT.value or (os.path.join(logdirs[0], 'curves.png') if len(logdirs) == 1
                             else 'curves.png')
  try:
    plot(logdirs, output)
  except PlotError as error:
    print(f'error: {error}', file=sys.stderr, flush=True)
    return 2
  print(f'wrote {output}', flush=True)


if __name__ == '__main__':
  sys.exit(app.run(main))
