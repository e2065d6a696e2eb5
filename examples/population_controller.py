"""The population's controller node (`examples/population.py`): every
`population.interval_seconds` it reads each learner's `get_stats` over its control
edge, ranks the members that are ready (trained `population.ready_frames` frames since
they last copied another, with a recent return), and for each of the worst
`exploit_fraction` (at least one):

- exploit: the member takes the weights and optimizer state of one of the best as many
  (`get_weights` -> `set_weights`);
- explore: it takes that member's hyperparameters, each multiplied by one of
  `perturb_factors` at random (`get_hyperparameters` -> `set_hyperparameters`).

Each round that changes something is a line in `<logdir>/population.jsonl`, and each copy
a line on the launcher's console (`sg.tell_console`); each learner
counts what it was given in its own metrics (`weights_loaded`, `hyperparameters_set`,
`hyperparameter/<name>`). A learner that does not answer (restarting, or stopped) within
`seed_graph.nodes.learner.client.CONTROL_CALL_TIMEOUT_SECONDS` is left out of the round. Run by
`lp.PyClassNode`, which calls `run()` until the program stops.
"""

import json
import os
import time
from typing import Dict, List, Optional, Sequence, Tuple

from absl import logging
import numpy as np

import seed_graph as sg



def plan_round(returns: Sequence[Optional[float]], ready: Sequence[bool],
               exploit_fraction: float, rng: np.random.Generator
               ) -> List[Tuple[int, int]]:
  """(member that copies, member it copies) pairs for one round: the worst
  `exploit_fraction` of the ready members with a return each copy one of the best as
  many, if strictly better."""
  ranked = sorted((i for i, r in enumerate(returns) if ready[i] and r is not None),
                  key=lambda i: returns[i])
  if len(ranked) < 2:
    return []
  n = max(1, int(len(ranked) * exploit_fraction))
  best = ranked[-n:]
  pairs = []
  for loser in ranked[:n]:
    winner = int(rng.choice(best))
    if returns[winner] > returns[loser]:
      pairs.append((loser, winner))
  return pairs


def perturb(values: Dict[str, float], factors: Sequence[float],
            rng: np.random.Generator) -> Dict[str, float]:
  """Each value times one of `factors`, drawn independently."""
  return {name: float(value * rng.choice(factors)) for name, value in values.items()}


def describe(change: dict) -> str:
  """One copy as the console line says it:
  `member 1 (return 23.5) copied member 0 (return 181); learning_rate 0.00048, ...`."""
  mine, theirs = (f'{value:.3g}' for value in change['returns'])
  values = ', '.join(f'{name} {value:.3g}' for name, value in
                     sorted(change['hyperparameters'].items()))
  return (f'member {change["member"]} (return {mine}) copied member {change["copied"]} '
          f'(return {theirs}) at {change["frames"]:,} frames; {values}')


class PopulationController:
  """`PopulationController(learners, config)`: `learners` are the members' dereferenced
  learner handles (`seed_graph.LearnerClient`), in member order."""

  def __init__(self, learners: Sequence, config):
    self._learners = list(learners)
    self._settings = config.population
    self._rng = np.random.default_rng(config.seed)
    self._changed_at = [0] * len(self._learners)  # Frames at each member's last copy.
    self._log_path = os.path.join(config.logdir, 'population.jsonl')

  def _stats(self) -> List[Optional[dict]]:
    stats = []
    for k, learner in enumerate(self._learners):
      if sg.stopping():  # Each call to a stopped learner waits out its timeout.
        stats.append(None)
        continue
      try:
        stats.append(learner.get_stats())
      except Exception as error:  # pylint: disable=broad-except
        logging.warning('member %d did not answer (%s); left out of this round', k,
                        type(error).__name__)
        stats.append(None)
    return stats

  def step(self) -> List[dict]:
    """One round; what it changed, a dict per member that copied another."""
    stats = self._stats()
    returns = [s.get('episode_return') if s else None for s in stats]
    ready = [bool(s) and s['frames'] - self._changed_at[k] >= self._settings.ready_frames
             for k, s in enumerate(stats)]
    changes = []
    for loser, winner in plan_round(returns, ready, self._settings.exploit_fraction,
                                    self._rng):
      source = self._learners[winner]
      self._learners[loser].set_weights(source.get_weights(), f'member_{winner}')
      values = perturb(source.get_hyperparameters(), self._settings.perturb_factors,
                       self._rng)
      self._learners[loser].set_hyperparameters(values)
      self._changed_at[loser] = stats[loser]['frames']
      changes.append({'member': loser, 'copied': winner, 'returns': [returns[loser],
                      returns[winner]], 'frames': stats[loser]['frames'],
                      'hyperparameters': values})
    if changes:
      with open(self._log_path, 'a') as f:
        f.write(json.dumps({'time': time.time(), 'returns': returns,
                            'changes': changes}) + '\n')
    return changes

  def run(self) -> None:
    next_round = time.monotonic() + self._settings.interval_seconds
    while not sg.stopping():
      time.sleep(0.2)
      if time.monotonic() < next_round:
        continue
      next_round = time.monotonic() + self._settings.interval_seconds
      try:
        for change in self.step():
          sg.tell_console(describe(change))
      except Exception as error:  # pylint: disable=broad-except
        # A member restarting between two calls: the next round tries again.
        logging.warning('population round failed: %s', error)
