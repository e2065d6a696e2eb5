r"""Two revisions of this repository, trained end to end one after the other: does a change
make training slower?

  python -m benchmarks.revisions --baseline=<git revision> [--candidate=HEAD] \
      [--config=cartpole_vtrace] [--pairs=3] [--seconds=55] [--skip_seconds=30] \
      [--config.KEY=VALUE ...] [--baseline_flags=--config.KEY=VALUE ...] \
      [--candidate_flags=--config.KEY=VALUE ...]

One revision against itself with different flags compares settings instead, e.g. the
actors' environment backends: `--baseline=HEAD --candidate_flags=--config.env.backend=envpool`.
A smoke run (about a minute): `--baseline=HEAD --pairs=1 --seconds=10 --skip_seconds=1
--config.actors.num=1 --config.evaluators.num=0 --config.logging.interval_seconds=1`.

Each revision (committed: `git archive`) is exported to a temporary directory and runs
its own local launcher (`python -m seed_graph.launch.local`, or `launch.local` in
revisions older than that name) on the config (its own copy, as the revision has it;
evaluators as configured, total frames unbounded), with `--config.KEY=VALUE` given to
every run and `--baseline_flags` / `--candidate_flags` to that side's, until its
`metrics.jsonl` spans `--seconds` of training past start-up, then Ctrl-C; baseline and
candidate alternate, `--pairs` times. Start-up lasts `--skip_seconds` (wall time counts
from the learner's start) and at least until the learner's first step (traces). A run's
speed is the growth of the learner's `frames` per second from the end of start-up to its
last record. Reported: each run's
training frames/s and learner steps/s (a JSON line each), the median of each revision,
and the median of the per-pair ratios candidate / baseline (the machine's speed drifts;
neighbouring runs share it), then a JSON line of the summary.
"""

import json
import os
import statistics
import tempfile

from absl import app
from absl import flags

from benchmarks import code_snapshots
from benchmarks import timed_runs

_BASELINE = flags.DEFINE_string('baseline', None, 'The git revision to compare against.')
_CANDIDATE = flags.DEFINE_string('candidate', 'HEAD', 'The git revision measured.')
_CONFIG = flags.DEFINE_string('config', 'cartpole_vtrace',
                              'Experiment config: a preset\'s name, or a path inside each '
                              'revision.')
_PAIRS = flags.DEFINE_integer('pairs', 3, 'Alternating baseline/candidate run pairs.')
_SECONDS = flags.DEFINE_float('seconds', 55.0, 'Measured training time of each run.')
_SKIP = flags.DEFINE_float('skip_seconds', 30.0, 'Unmeasured start of each run.')
_BASELINE_FLAGS = flags.DEFINE_multi_string('baseline_flags', [],
                                            'Extra launcher flags of baseline runs.')
_CANDIDATE_FLAGS = flags.DEFINE_multi_string('candidate_flags', [],
                                             'Extra launcher flags of candidate runs.')
flags.mark_flags_as_required(['baseline'])
_OVERRIDES = []  # The KEY=VALUE of every --config.KEY=VALUE (all runs), in order.


def main(argv):
  del argv
  with tempfile.TemporaryDirectory(prefix='seed_graph_revisions_') as scratch:
    trees = {}
    for role, revision in (('baseline', _BASELINE.value), ('candidate', _CANDIDATE.value)):
      trees[role] = os.path.join(scratch, role)
      os.makedirs(trees[role])
      code_snapshots.export(revision, trees[role])
    runs = {'baseline': [], 'candidate': []}
    for pair in range(_PAIRS.value):
      for role in ('baseline', 'candidate'):
        extra_flags = (_BASELINE_FLAGS if role == 'baseline' else _CANDIDATE_FLAGS).value
        result = timed_runs.run_launcher(
            trees[role], _CONFIG.value, os.path.join(scratch, f'{role}{pair}'),
            _SECONDS.value, _SKIP.value,
            [*[f'--config.{override}' for override in _OVERRIDES], *extra_flags])
        runs[role].append(result)
        print(json.dumps(dict(result, revision=role, pair=pair)), flush=True)
  ratios = [c['frames_per_second'] / b['frames_per_second']
            for b, c in zip(runs['baseline'], runs['candidate'])]
  summary = {'config': _CONFIG.value, 'overrides': _OVERRIDES, 'seconds': _SECONDS.value,
             'skip_seconds': _SKIP.value}
  for role, revision in (('baseline', _BASELINE.value), ('candidate', _CANDIDATE.value)):
    fps = statistics.median(r['frames_per_second'] for r in runs[role])
    steps = statistics.median(r['learner_steps_per_second'] for r in runs[role])
    extra_flags = (_BASELINE_FLAGS if role == 'baseline' else _CANDIDATE_FLAGS).value
    summary[role] = {'revision': revision, 'flags': extra_flags,
                     'frames_per_second': round(fps, 1),
                     'learner_steps_per_second': round(steps, 3)}
    print(f'{role:9s} {revision:12s} {fps:9,.0f} frames/s {steps:7.2f} learner steps/s '
          f'{" ".join(extra_flags)}')
  print(f'candidate / baseline frames/s, median of {len(ratios)} pairs: '
        f'{statistics.median(ratios):.3f} (pairs: {", ".join(f"{r:.3f}" for r in ratios)})')
  summary.update(ratio=round(statistics.median(ratios), 3),
                 pairs=[round(r, 3) for r in ratios])
  print(json.dumps(summary))


if __name__ == '__main__':
  from seed_graph.launch.runs import config_args  # pylint: disable=g-import-not-at-top
  app.run(main, flags_parser=config_args.flags_parser(_OVERRIDES))
