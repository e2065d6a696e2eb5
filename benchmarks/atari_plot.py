"""The Atari suite's picture (`atari.png`, see `benchmarks.atari_report`): per game and
setting at a budget, the mean training return over seeds against frames, lowest to
highest seed shaded, the anchor as a line; past an unfinished run's end, over the runs
that got there."""

from typing import Callable, Dict, List, Tuple

import numpy as np


def seeds_curve(curves: List[List[tuple]], points: int = 200):
  """Seeds' curves ([(frames, return), ...] each) on one grid of `points` frames, to the
  longest run's end -> (grid, mean, lowest, highest). Past a shorter (unfinished) run's
  last point, the figures are over the runs that got there."""
  grid = np.linspace(0, max(c[-1][0] for c in curves), points)
  ys = np.array([np.interp(grid, *zip(*c), right=np.nan) for c in curves])
  return grid, np.nanmean(ys, 0), np.nanmin(ys, 0), np.nanmax(ys, 0)


def plot(runs: List[dict], path: str, row: Callable[[dict], tuple],
         label: Callable[[dict], str], anchors: Dict[str, Tuple[float, ...]]) -> None:
  """Draws `runs` into `path`: a curve per `row(run)`, named `label(run)`; a game's
  anchor (`anchors[game][0]`) as a dashed line."""
  import matplotlib  # pylint: disable=g-import-not-at-top
  matplotlib.use('Agg')
  from matplotlib import pyplot  # pylint: disable=g-import-not-at-top
  games = sorted({run['game'] for run in runs}) or ['(no runs)']
  figure, axes = pyplot.subplots(1, len(games), figsize=(5 * len(games), 4), squeeze=False)
  for game, ax in zip(games, axes[0]):
    for key in sorted({row(run) for run in runs if run['game'] == game}):
      members = [run for run in runs if row(run) == key]
      curves = [run['curve'] for run in members if run.get('curve')]
      if curves:
        grid, mean, low, high = seeds_curve(curves)
        line, = ax.plot(grid, mean, label=f'{label(members[0])}, {key[-1] / 1e6:g}M, '
                                          f'mean of {len(curves)}')
        ax.fill_between(grid, low, high, alpha=0.2, color=line.get_color())
    if game in anchors:
      ax.axhline(anchors[game][0], color='k', linestyle='--', label='CleanRL PPO, 40M')
    ax.set(title=game, xlabel='environment frames', ylabel='return (whole games)')
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
  figure.tight_layout()
  figure.savefig(path, dpi=100)
  pyplot.close(figure)
