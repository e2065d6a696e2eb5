r"""seed_graph against another program, trained end to end one after the other on the same
machine: training frames/s of each, alternating, and their ratio.

  python -m benchmarks.versus --other_command='PYTHON ppo_atari.py --env-id
      PongNoFrameskip-v4 --no-cuda --total-timesteps 100000000' \
      [--other_line_pattern='^SPS:'] [--other_frames_per_line=4096] \
      [--config=atari_cleanrl_vtrace] [--pairs=2] [--seconds=80] \
      [--skip_seconds=40] [--config.KEY=VALUE ...] [--launcher_flags=FLAG ...]

The defaults read CleanRL's `ppo_atari.py`, which prints a line `SPS: ...` once per
iteration: 8 environments x 128 steps, 4 frames a step. Another program needs the
pattern of a line it prints once per fixed number of trained frames, and that number; or
a pattern whose group is its running total of trained frames (Sample Factory:
`--other_line_pattern='Total num frames: (\d+)'`).
How the other programs are set up is in `docs/results/speed.md#against-cleanrl`;
they are not dependencies of this project.

The other command runs in a scratch directory (CleanRL writes `runs/` where it starts): give
its paths whole. Each pair runs this checkout's local launcher on `--config`
(`--config.KEY=VALUE` added, evaluators as configured), then the other command, each until
its reports span `--seconds` past start-up (`--skip_seconds`, and for seed_graph the
learner's first step). A run's speed is the growth of its trained frames per second from the
end of start-up to its last report (`benchmarks.timed_runs`). Reported: each run's frames/s
(a JSON line each), each side's median, and the median of the per-pair ratios seed_graph /
other, then a JSON line of the summary.
"""

import json
import os
import shlex
import statistics
import tempfile

from absl import app
from absl import flags

from benchmarks import timed_runs

_OTHER = flags.DEFINE_string('other_command', None, 'The other program\'s command line.')
_PATTERN = flags.DEFINE_string('other_line_pattern', '^SPS:',
                               'A line the other program prints once per '
                               '--other_frames_per_line trained frames, or (with a '
                               'group) its running total of trained frames.')
_FRAMES_PER_LINE = flags.DEFINE_integer('other_frames_per_line', 8 * 128 * 4,
                                        'Trained frames per such line.')
_CONFIG = flags.DEFINE_string('config', 'atari_cleanrl_vtrace',
                              'seed_graph\'s config.')
_PAIRS = flags.DEFINE_integer('pairs', 2, 'Alternating seed_graph/other run pairs.')
_SECONDS = flags.DEFINE_float('seconds', 80.0, 'Measured training time of each run.')
_SKIP = flags.DEFINE_float('skip_seconds', 40.0, 'Unmeasured start of each run.')
_LAUNCHER_FLAGS = flags.DEFINE_multi_string('launcher_flags', [],
                                            'Extra flags of seed_graph\'s launcher.')
flags.mark_flags_as_required(['other_command'])
_OVERRIDES = []  # The KEY=VALUE of every --config.KEY=VALUE, in order.

_REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f'unexpected arguments: {argv[1:]}')
  other = shlex.split(_OTHER.value)
  runs = {'seed_graph': [], 'other': []}
  with tempfile.TemporaryDirectory(prefix='seed_graph_versus_') as scratch:
    for pair in range(_PAIRS.value):
      runs['seed_graph'].append(timed_runs.run_launcher(
          _REPO, _CONFIG.value, os.path.join(scratch, f'seed_graph{pair}'), _SECONDS.value,
          _SKIP.value, [*[f'--config.{override}' for override in _OVERRIDES],
                        *_LAUNCHER_FLAGS.value]))
      print(json.dumps(dict(runs['seed_graph'][-1], side='seed_graph', pair=pair)),
            flush=True)
      runs['other'].append(timed_runs.run_command(
          other, os.path.join(scratch, f'other{pair}.out'), _SECONDS.value, _SKIP.value,
          _PATTERN.value, _FRAMES_PER_LINE.value))
      print(json.dumps(dict(runs['other'][-1], side='other', pair=pair)), flush=True)
  ratios = [ours['frames_per_second'] / theirs['frames_per_second']
            for ours, theirs in zip(runs['seed_graph'], runs['other'])]
  summary = {'config': _CONFIG.value, 'overrides': _OVERRIDES, 'other': _OTHER.value,
             'seconds': _SECONDS.value, 'skip_seconds': _SKIP.value}
  for side, side_runs in runs.items():
    fps = statistics.median(r['frames_per_second'] for r in side_runs)
    summary[side] = {'frames_per_second': round(fps, 1),
                     'runs': [round(r['frames_per_second'], 1) for r in side_runs]}
    print(f'{side:10s} {fps:9,.0f} frames/s')
  summary.update(ratio=round(statistics.median(ratios), 3),
                 pairs=[round(r, 3) for r in ratios])
  print(f'seed_graph / other frames/s, median of {len(ratios)} pairs: '
        f'{summary["ratio"]:.3f} (pairs: {", ".join(f"{r:.3f}" for r in ratios)})')
  print(json.dumps(summary))


if __name__ == '__main__':
  from seed_graph.launch.runs import config_args  # pylint: disable=g-import-not-at-top
  app.run(main, flags_parser=config_args.flags_parser(_OVERRIDES))
