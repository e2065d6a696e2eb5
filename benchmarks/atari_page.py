"""The Atari suite's page, `atari.md` (see `benchmarks.atari_report`, which reads the runs):
a row per setting (a game's config and any named variant of it: the budget, the training,
evaluated and evaluator returns over seeds, frames and wall-clock to the anchor's score,
frames/s), then every run and the suite commands that train them.

The anchor is CleanRL's PPO (`ppo_atari.py`, 3 seeds, 10M agent steps = 40M frames, its
`docs/rl-algorithms/ppo.md`) on the same protocol; openai/baselines' PPO beside it.
"""

import os
import statistics
from typing import List

# game: (CleanRL PPO mean, std; openai/baselines PPO mean, std), final returns at 40M frames.
ANCHORS = {'Pong': (20.36, 0.20, 20.51, 0.50),
           'Breakout': (414.66, 28.09, 406.57, 31.55),
           'BeamRider': (1915.93, 484.58, 2642.97, 670.37)}



def _mean_std(values) -> str:
  values = [v for v in values if v is not None]
  if not values:
    return '-'
  std = statistics.stdev(values) if len(values) > 1 else 0.0
  return f'{statistics.mean(values):,.2f} ± {std:,.2f}'


def _hours(seconds) -> str:
  return '-' if seconds is None else f'{seconds / 3600:.2f} h'


def _cpus(run: dict) -> str:
  """The CPU kinds a run's launches trained on, by the flag that names each ('AMX'), '?'
  for launches that did not record theirs; '-' where none did."""
  kinds = [cpu.rpartition('(')[2].rstrip(')') if '(' in cpu else '?'
           for cpu in run.get('cpus', [])]
  return '-' if set(kinds) <= {'?'} else ', '.join(kinds)


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


def newest_per_seed(runs: List[dict]) -> List[dict]:
  """Of `runs`, each row's seeds' runs started last: a seed trained again from nothing
  (newer code, same setting and budget) stands for that seed in the row and its curve;
  the older run stays under "Every run". A run recorded before runs said when they
  started (no 'started') counts as the oldest."""
  newest = {}
  for run in runs:
    kept = newest.get((row(run), run['seed']))
    if kept is None or run.get('started', '') >= kept.get('started', ''):
      newest[row(run), run['seed']] = run
  return [run for run in runs if newest[row(run), run['seed']] is run]


def _summary_rows(finished: List[dict]) -> List[str]:
  """A row per setting and budget: its seeds' final returns, the anchor, time to it,
  speed."""
  rows = []
  finished = newest_per_seed(finished)
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
                f'| {_mean_std(r.get("final_eval_return") for r in runs)} '
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
  evaluator = run.get('final_eval_return')  # Not in runs recorded before it was.
  evaluator = '-' if evaluator is None else f'{evaluator:,.2f}'
  to_anchor = ('-' if run['frames_to_anchor'] is None else
               f'{run["frames_to_anchor"] / 1e6:.1f}M, '
               f'{_hours(run["wall_clock_to_anchor_seconds"])}')
  return (f'| {run["game"]} | {label(run)} | {run["seed"]} | {run["frames"] / 1e6:.2f}M'
          f'{state} | {final} | {evaluated} | {evaluator} | {to_anchor} | '
          f'{_hours(run["wall_clock_seconds"])} | '
          f'{run["frames_per_second"] or 0:,} | {_cpus(run)} | `{run["commit"]}` | '
          f'{" ".join(run["overrides"]) or "-"} |')


def page(finished: List[dict], unfinished: List[dict]) -> str:
  """The page's Markdown: the finished runs' settings, then every run."""
  lines = ['# Atari against CleanRL\'s PPO table', '',
           'Generated by `python -m benchmarks.atari_suite` (see its docstring for the '
           'options); do not edit by hand.', '',
           'The anchor: CleanRL\'s `ppo_atari.py` (3 seeds, 40M frames, its documentation\'s '
           '`docs/rl-algorithms/ppo.md`) and openai/baselines\' PPO, on the protocol of '
           '`seed_graph/configs/atari_cleanrl_vtrace.py`, which `atari_cleanrl_r2d2.py` '
           'shares. A row is a setting: a config, '
           'and a named variant of it with its overrides. Final return: the mean of the last 100 '
           'whole games (all lives) at the run\'s last record that has one; "to anchor": '
           'the first record whose mean reaches CleanRL\'s mean (in every run\'s row, finished '
           'or not: its frames and the wall-clock to it). Evaluated: the games '
           '`launch.eval` played with a finished run\'s final checkpoint (their number in '
           'brackets; the config\'s evaluation epsilon), a score no restart of the '
           'learner touches. Evaluator: the mean of the evaluator node\'s last games '
           '(same epsilon) at the run\'s last record, the greedy policy\'s score while it '
           'trained; the final return is the training environments\', whose exploration '
           'it includes. Commits before `89fa6f5` left out of the final return the games '
           'in flight at each of the learner\'s planned restarts (on some runs every 15 '
           'minutes, so that mostly short games counted), and before `04659c6` counted '
           'what was left of them as whole games; the evaluated column is untouched by '
           'either. Wall-clock counts the '
           'learner\'s running time (a resumed run\'s segments added up). V-trace\'s '
           'learning rate decays linearly to 0 at a run\'s budget: one whose budget changed says '
           'so. CPU: the kinds of CPU a run trained on, each once, in the order it first '
           'ran on them (named by the flag that decides its precision; ? for launches '
           'from before they were recorded). A seed trained again from nothing at the same setting and budget counts '
           'once in its row and curve, by its newest run. Runs made elsewhere are kept '
           'from the previous JSONs (`atari.json`, '
           'and `r2d2.json` for R2D2\'s runs). What '
           'CleanRL\'s own script needs for its 40M frames on the machine these ran on, '
           'measured side by side with the preset, is in '
           '[speed.md](speed.md#against-cleanrl).', '',
           '| game | setting | seeds | budget | final return | evaluated | evaluator '
           '| CleanRL PPO (40M) | baselines PPO (40M) | frames to anchor '
           '| wall-clock to anchor | training frames/s |', '| --- ' * 12 + '|']
  lines += _summary_rows(finished)
  if not finished:
    lines[-2:] = ['No run has reached its frame budget yet: every run so far is below, '
                  'under "Every run".']
  lines += ['', '![Atari curves](atari.png)', '', '## Every run', '',
            '| game | setting | seed | frames | final return | evaluated | evaluator '
            '| to anchor | wall-clock | frames/s | CPU | commit | overrides |',
            '| --- ' * 13 + '|']
  lines += [_run_row(run, True) for run in finished]
  lines += [_run_row(run, False) for run in unfinished]
  lines += ['', 'To train a setting\'s runs (a finished run is skipped, an unfinished one '
            'resumed from its logdir under the suite\'s `--root`, or from its packed file '
            'in `carried_runs/atari/` where that logdir is missing or behind):', '']
  lines += [f'    {command}' for command in _commands(finished + unfinished)]
  return '\n'.join(lines) + '\n'


