"""The Atari suite's results page from its runs' logdirs (see `benchmarks.atari_suite`).

Writes a JSON of each algorithm's runs (finished, and the unfinished apart): `atari.json`
for the anchor's protocol config's (`REFERENCE_CONFIG`), `<algorithm>.json` for another;
`atari.md` (a row per setting, a game's config and any named variant of it: the budget,
the final and evaluated return over seeds, frames and wall-clock to the anchor's score,
frames/s; then every run and the suite commands that train them) and `atari.png`
(`benchmarks.atari_plot`: the mean training return over seeds against frames).

Runs are read from the logdirs under the suite's root and from the JSONs already in the
output directory: a run recorded there whose logdir is not under the root (made on
another machine, or its logdir gone) stays on the page as recorded, with up to
`CURVE_POINTS` points of its curve, which is all the picture needs.

The anchor is CleanRL's PPO (`ppo_atari.py`, 3 seeds, 10M agent steps = 40M frames, its
`docs/rl-algorithms/ppo.md`) on the same protocol; openai/baselines' PPO beside it.
"""

import functools
import glob
import json
import os
import statistics
from typing import List, Optional

from benchmarks import atari_plot
from seed_graph.launch import plot
from seed_graph.launch.runs import config_args

SUITE_FILE = 'suite.json'
CURVE_POINTS = 100  # Of each run's curve kept in its JSON.
REFERENCE_CONFIG = 'atari_cleanrl_vtrace'  # The anchor's protocol; its runs: atari.json.
# game: (CleanRL PPO mean, std; openai/baselines PPO mean, std), final returns at 40M frames.
ANCHORS = {'Pong': (20.36, 0.20, 20.51, 0.50),
           'Breakout': (414.66, 28.09, 406.57, 31.55),
           'BeamRider': (1915.93, 484.58, 2642.97, 670.37)}


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


def read_run(logdir: str) -> Optional[dict]:
  """One run's figures, or None if it has no records yet."""
  with open(os.path.join(logdir, SUITE_FILE)) as f:
    suite = json.load(f)
  try:
    curves = plot.read_curves(logdir)
  except plot.PlotError:
    return None
  game, frames = suite['game'], curves['frames']
  anchor = ANCHORS.get(game, (None,))[0]
  at_anchor = next((i for i, r in enumerate(curves['return'])
                    if anchor is not None and r is not None and r >= anchor), None)
  seconds = curves['minutes'][-1] * 60
  return {
      'game': game, 'seed': suite['seed'],
      'config': config_args.setting_name(suite['config']),
      'algorithm': algorithm(suite['config'], suite['overrides']),
      'overrides': suite['overrides'], 'variant': suite.get('variant', ''),
      'commit': _commits(suite['launches'], suite['overrides']),
      'budget': suite['frames'], 'budget_changes': suite.get('budget_changes', []),
      'frames': int(frames[-1]),
      'final_return': next((r for r in reversed(curves['return']) if r is not None), None),
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
  return (*setting(run), run['seed'], run['commit'].split(',')[0].split()[0])


def carried_runs(output: str, present: List[dict]) -> List[dict]:
  """The runs of the JSONs already in `output` (finished and unfinished) that `present`
  (the runs read from logdirs here) does not hold: runs made on another machine, or whose
  logdirs are gone, stay on the page. A logdir here supersedes its run's record."""
  carried = []
  for path in sorted(glob.glob(os.path.join(output, '*.json'))):
    with open(path) as f:
      page = json.load(f)
    if not isinstance(page, dict) or 'runs' not in page:
      continue  # Not a page of runs.
    carried += [dict(run, config=config_args.setting_name(run['config']))
                for run in page['runs'] + page.get('unfinished', [])]
  for run in carried:  # Recorded before runs named their algorithm.
    run.setdefault('algorithm', algorithm(run['config'], run['overrides']))
  here = {_identity(run) for run in present}
  return [run for run in carried if _identity(run) not in here]


def _mean_std(values) -> str:
  values = [v for v in values if v is not None]
  if not values:
    return '-'
  std = statistics.stdev(values) if len(values) > 1 else 0.0
  return f'{statistics.mean(values):,.2f} ± {std:,.2f}'


def _hours(seconds) -> str:
  return '-' if seconds is None else f'{seconds / 3600:.2f} h'


def setting(run: dict) -> tuple:
  """A setting: (game, variant, config, overrides)."""
  return run['game'], run['variant'], run['config'], tuple(run['overrides'])


def row(run: dict) -> tuple:
  """What a row of the page and a curve of the picture hold the seeds of: a setting at a
  budget (the learning rate decays to 0 at the budget)."""
  return (*setting(run), run['budget'])


def _commands(runs: List[dict]) -> List[str]:
  """The suite commands that train `runs`, one per setting and budget."""
  seeds = {}
  for run in runs:
    seeds.setdefault(row(run), []).append(str(run['seed']))
  return [f'python -m benchmarks.atari_suite --config={config} --games={game} '
          f'--seeds={",".join(sorted(set(run_seeds), key=int))} --frames={budget}'
          + (f' --variant={variant}' if variant else '')
          + ''.join(f' --config.{override}' for override in overrides)
          for (game, variant, config, overrides, budget), run_seeds in sorted(seeds.items())]


def label(run: dict) -> str:
  """A setting's name on the page and the picture: its config file and variant."""
  return os.path.basename(run['config']) + (f' {run["variant"]}' if run['variant'] else '')


def _summary_rows(finished: List[dict]) -> List[str]:
  """A row per setting and budget: its seeds' final returns, the anchor, time to it,
  speed."""
  rows = []
  for key in sorted({row(run) for run in finished}):
    runs = [run for run in finished if row(run) == key]
    game, anchor = key[0], ANCHORS.get(key[0])
    reached = [run for run in runs if run['frames_to_anchor'] is not None]
    to_anchor = (f'{len(reached)} of {len(runs)}: ' + ', '.join(
        f'{run["frames_to_anchor"] / 1e6:.1f}M' for run in reached)) if reached else 'none'
    clock = ', '.join(_hours(run['wall_clock_to_anchor_seconds']) for run in reached) or '-'
    fps = statistics.median(run['frames_per_second'] or 0 for run in runs)
    evaluated = [run['evaluated']['mean_return'] for run in runs if run.get('evaluated')]
    rows.append(f'| {game} | {label(runs[0])} | {len(runs)} | {key[-1] / 1e6:g}M '
                f'| {_mean_std(r["final_return"] for r in runs)} '
                f'| {_mean_std(evaluated)}'
                f'{"" if len(evaluated) in (0, len(runs)) else f" ({len(evaluated)} seeds)"} '
                f'| {"-" if not anchor else f"{anchor[0]:,.2f} ± {anchor[1]:,.2f}"} '
                f'| {"-" if not anchor else f"{anchor[2]:,.2f} ± {anchor[3]:,.2f}"} '
                f'| {to_anchor} | {clock} | {fps:,.0f} |')
  return rows


def _run_row(run: dict, finished: bool) -> str:
  state = '' if finished else f' of {run["budget"] / 1e6:g}M (unfinished)'
  state += ''.join(f'; budget {c["from"] / 1e6:g}M until {c["at_frames"] / 1e6:.2f}M, '
                   f'then {c["to"] / 1e6:g}M' for c in run['budget_changes'])
  final = '-' if run['final_return'] is None else f'{run["final_return"]:,.2f}'
  games = run.get('evaluated')
  evaluated = '-' if not games else (f'{games["mean_return"]:,.2f} ± '
                                     f'{games["std_return"]:,.2f} ({games["episodes"]})')
  return (f'| {run["game"]} | {label(run)} | {run["seed"]} | {run["frames"] / 1e6:.2f}M'
          f'{state} | {final} | {evaluated} | {_hours(run["wall_clock_seconds"])} | '
          f'{run["frames_per_second"] or 0:,} | `{run["commit"]}` | '
          f'{" ".join(run["overrides"]) or "-"} |')


def _page(finished: List[dict], unfinished: List[dict]) -> str:
  lines = ['# Atari against CleanRL\'s PPO table', '',
           'Generated by `python -m benchmarks.atari_suite` (see its docstring for the '
           'options); do not edit by hand.', '',
           'The anchor: CleanRL\'s `ppo_atari.py` (3 seeds, 40M frames, its documentation\'s '
           '`docs/rl-algorithms/ppo.md`) and openai/baselines\' PPO, on the protocol of '
           '`seed_graph/configs/atari_cleanrl_vtrace.py`, which `atari_cleanrl_r2d2.py` '
           'shares. A row is a setting: a config, '
           'and a named variant of it with its overrides. Final return: the mean of the last 100 '
           'whole games (all lives) at the run\'s last record that has one; "to anchor": '
           'the first record whose mean reaches CleanRL\'s mean. Evaluated: the games '
           '`launch.eval` played with a finished run\'s final checkpoint (their number in '
           'brackets; the config\'s evaluation epsilon), a score no restart of the '
           'learner touches. Wall-clock counts the '
           'learner\'s running time (a resumed run\'s segments added up). V-trace\'s '
           'learning rate decays linearly to 0 at a run\'s budget: one whose budget changed says '
           'so. Runs made elsewhere are carried from the previous JSONs (`atari.json`, '
           'and `r2d2.json` for R2D2\'s runs). What '
           'CleanRL\'s own script needs for its 40M frames on the machine these ran on, '
           'measured side by side with the preset, is in '
           '[speed.md](speed.md#against-cleanrl).', '',
           '| game | setting | seeds | budget | final return | evaluated '
           '| CleanRL PPO (40M) | baselines PPO (40M) | frames to anchor '
           '| wall-clock to anchor | training frames/s |', '| --- ' * 11 + '|']
  lines += _summary_rows(finished)
  if not finished:
    lines[-2:] = ['No run has reached its frame budget yet: every run so far is below, '
                  'under "Every run".']
  lines += ['', '![Atari curves](atari.png)', '', '## Every run', '',
            '| game | setting | seed | frames | final return | evaluated | wall-clock '
            '| frames/s | commit | overrides |', '| --- ' * 10 + '|']
  lines += [_run_row(run, True) for run in finished]
  lines += [_run_row(run, False) for run in unfinished]
  lines += ['', 'To train a setting\'s runs (a finished run is skipped, an unfinished one '
            'resumed from its logdir under the suite\'s `--root`):', '']
  lines += [f'    {command}' for command in _commands(finished + unfinished)]
  return '\n'.join(lines) + '\n'


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
  runs += carried_runs(output, runs)
  finished = [run for run in runs if run['frames'] >= run['budget']]
  unfinished = [run for run in runs if run['frames'] < run['budget']]
  os.makedirs(output, exist_ok=True)
  paths = [os.path.join(output, 'atari.md'), os.path.join(output, 'atari.png')]
  with open(paths[0], 'w') as f:
    f.write(_page(finished, unfinished))
  atari_plot.plot(runs, paths[1], row, label, ANCHORS)
  algorithms = {run['algorithm'] for run in runs} | {_preset_algorithm(REFERENCE_CONFIG)}
  for name in sorted(algorithms):
    paths.append(os.path.join(output, json_name(name)))
    with open(paths[-1], 'w') as f:
      json.dump({'algorithm': name,
                 'runs': [sparse(r) for r in finished if r['algorithm'] == name],
                 'unfinished': [sparse(r) for r in unfinished if r['algorithm'] == name]},
                f, indent=1)
  return paths
