"""The Atari suite's results page from its runs' logdirs (see `benchmarks.atari_suite`).

Writes a JSON of each algorithm's runs (finished, and the unfinished apart): `atari.json`
for the anchor's protocol config's (`REFERENCE_CONFIG`), `<algorithm>.json` for another;
`atari.md` (`benchmarks.atari_page`) and `atari.png` (`benchmarks.atari_plot`: the mean
training return over seeds against frames).

Runs are read from the logdirs under the suite's root and from the JSONs already in the
output directory: a run recorded there whose logdir is not under the root (made on
another machine, or its logdir gone) stays on the page as recorded, with up to
`CURVE_POINTS` points of its curve, which is all the picture needs.

The anchor's scores are `atari_page.ANCHORS`.
"""

import functools
import glob
import json
import os
from typing import List, Optional

from benchmarks import atari_page
from benchmarks import atari_plot
from seed_graph.launch import plot
from seed_graph.launch.runs import config_args

SUITE_FILE = 'suite.json'
CURVE_POINTS = 100  # Of each run's curve kept in its JSON.
REFERENCE_CONFIG = 'atari_cleanrl_vtrace'  # The anchor's protocol; its runs: atari.json.


def frames_trained(logdir: str) -> int:
  """Frames of the run's last metrics record (0 before the first)."""
  try:
    return int(plot.read_curves(logdir)['frames'][-1])
  except plot.PlotError:
    return 0


def evaluation(logdir: str) -> Optional[dict]:
  """`launch.eval`'s games with the run's newest checkpoint (its `eval.json`), or None
  if it has none or an older checkpoint's."""
  paths = [os.path.join(logdir, name) for name in ('eval.json', 'checkpoints/checkpoint')]
  if not all(os.path.exists(path) for path in paths):
    return None
  with open(paths[0]) as f:
    games = json.load(f)
  with open(paths[1]) as f:
    newest = f.readline().split('"')[1]  # model_checkpoint_path: "ckpt-N"
  if os.path.basename(games['checkpoint']) != os.path.basename(newest):
    return None
  return {key: games[key] for key in ('mean_return', 'std_return', 'episodes', 'epsilon')}


def _last(series: List[Optional[float]]) -> Optional[float]:
  return next((value for value in reversed(series) if value is not None), None)


def read_run(logdir: str) -> Optional[dict]:
  """One run's figures, or None if it has no records yet."""
  with open(os.path.join(logdir, SUITE_FILE)) as f:
    suite = json.load(f)
  try:
    curves = plot.read_curves(logdir)
  except plot.PlotError:
    return None
  game, frames = suite['game'], curves['frames']
  anchor = atari_page.ANCHORS.get(game, (None,))[0]
  at_anchor = next((i for i, r in enumerate(curves['return'])
                    if anchor is not None and r is not None and r >= anchor), None)
  seconds = curves['minutes'][-1] * 60
  return {
      'game': game, 'seed': suite['seed'],
      'config': config_args.setting_name(suite['config']),
      'algorithm': algorithm(suite['config'], suite['overrides']),
      'overrides': suite['overrides'], 'variant': suite.get('variant', ''),
      'commit': _commits(suite['launches'], suite['overrides']),
      'started': suite['launches'][0]['time'],
      # Launches recorded before the suite recorded CPU kinds count as 'unrecorded'.
      'cpus': list(dict.fromkeys(l.get('cpu', 'unrecorded') for l in suite['launches'])),
      'budget': suite['frames'], 'budget_changes': suite.get('budget_changes', []),
      'frames': int(frames[-1]),
      'final_return': _last(curves['return']),
      # The evaluator's last games during training (the config's evaluation epsilon).
      'final_eval_return': _last(curves['eval_return']),
      'evaluated': evaluation(logdir),
      'wall_clock_seconds': round(seconds),
      'frames_per_second': round(frames[-1] / seconds) if seconds else None,
      'frames_to_anchor': None if at_anchor is None else int(frames[at_anchor]),
      'wall_clock_to_anchor_seconds': (None if at_anchor is None else
                                       round(curves['minutes'][at_anchor] * 60)),
      # The records that have a return (the first ones may not: no whole game yet).
      'curve': [(int(f), r) for f, r in zip(frames, curves['return']) if r is not None],
  }


@functools.lru_cache(maxsize=None)
def _preset_algorithm(config: str) -> str:
  return config_args.load(config).algorithm


def algorithm(config: str, overrides: List[str]) -> str:
  """The algorithm a run of `config` with `overrides` trains."""
  chosen = [o.partition('=')[2] for o in overrides if o.partition('=')[0] == 'algorithm']
  return chosen[-1] if chosen else _preset_algorithm(config_args.setting_name(config))


def json_name(run_algorithm: str) -> str:
  """The JSON file of an algorithm's runs."""
  reference = _preset_algorithm(REFERENCE_CONFIG)
  return 'atari.json' if run_algorithm == reference else f'{run_algorithm}.json'


def _commits(launches: List[dict], overrides: List[str]) -> str:
  """The launches' commits, each once; those in a row with their own overrides (a run
  renamed when the preset took on its overrides) name them once, after the last."""
  groups = []  # [own overrides, [commits]]
  for launch in launches:
    own = launch.get('overrides', overrides)
    if not groups or groups[-1][0] != own:
      groups.append([own, []])
    groups[-1][1] += [launch['commit']] if launch['commit'] not in groups[-1][1] else []
  return ', '.join(', '.join(commits) + ('' if own == overrides else
                                         f' with {" ".join(own) or "no overrides"}')
                   for own, commits in groups)


def read_runs(root: str) -> List[dict]:
  runs = [read_run(os.path.dirname(path))
          for path in sorted(glob.glob(os.path.join(root, '*', '*', SUITE_FILE)))]
  return [run for run in runs if run is not None]


def _identity(run: dict) -> tuple:
  """A run across pages: its setting, seed and first launch's commit (a run started
  again from nothing, or at another budget, is another run)."""
  return (*atari_page.setting(run), run['seed'], run['commit'].split(',')[0].split()[0])


def recorded_runs(output: str, present: List[dict]) -> List[dict]:
  """The runs of the JSONs already in `output` (finished and unfinished) that `present`
  (the runs read from logdirs here) does not hold: runs made on another machine, or whose
  logdirs are gone, stay on the page. A logdir here supersedes its run's record."""
  recorded = []
  for path in sorted(glob.glob(os.path.join(output, '*.json'))):
    with open(path) as f:
      page = json.load(f)
    if not isinstance(page, dict) or 'runs' not in page:
      continue  # Not a page of runs.
    recorded += [dict(run, config=config_args.setting_name(run['config']))
                for run in page['runs'] + page.get('unfinished', [])]
  for run in recorded:  # Recorded before runs named their algorithm.
    run.setdefault('algorithm', algorithm(run['config'], run['overrides']))
  here = {_identity(run) for run in present}
  return [run for run in recorded if _identity(run) not in here]


def sparse(run: dict, points: int = CURVE_POINTS) -> dict:
  """The run with at most `points` of its curve (evenly spaced, the last kept), enough to
  draw it again from the JSON alone."""
  curve = run.get('curve', [])
  stride = max(1, -(-len(curve) // points))
  kept = curve[::-1][::stride][::-1]
  return {**run, 'curve': [[f, round(r, 2)] for f, r in kept]}


def write(root: str, output: str) -> List[str]:
  """Writes the page, a JSON per algorithm and the picture into `output`; their paths."""
  runs = read_runs(root)
  runs += recorded_runs(output, runs)
  finished = [run for run in runs if run['frames'] >= run['budget']]
  unfinished = [run for run in runs if run['frames'] < run['budget']]
  os.makedirs(output, exist_ok=True)
  paths = [os.path.join(output, 'atari.md'), os.path.join(output, 'atari.png')]
  with open(paths[0], 'w') as f:
    f.write(atari_page.page(finished, unfinished))
  atari_plot.plot(atari_page.newest_per_seed(runs), paths[1], atari_page.row,
                  atari_page.label, atari_page.ANCHORS)
  algorithms = {run['algorithm'] for run in runs} | {_preset_algorithm(REFERENCE_CONFIG)}
  for name in sorted(algorithms):
    paths.append(os.path.join(output, json_name(name)))
    with open(paths[-1], 'w') as f:
      json.dump({'algorithm': name,
                 'runs': [sparse(r) for r in finished if r['algorithm'] == name],
                 'unfinished': [sparse(r) for r in unfinished if r['algorithm'] == name]},
                f, indent=1)
  return paths
