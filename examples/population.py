"""Population-based training (Jaderberg et al., 2017) of V-trace learners, as a
researcher writes a program of their own from seed_graph's public building blocks:

    controller --control edges--> learner 0 <-- inference -- actors, evaluators
                               \\-> learner 1 <-- inference -- actors, evaluators
                                   ...

Each member is a whole V-trace learner with its own actors and evaluators, its own
logdir (`<logdir>/member_<k>`: metrics, checkpoints) and its own seed; its initial
learning rate and entropy cost are drawn log-uniformly within `population.spread` of the
config's. The controller (`examples/population_controller.py`) ranks the members every
`population.interval_seconds` by their recent return and makes the worst copy the best
(exploit), then perturbs what they copied (explore). The first member to reach
`total_environment_frames` ends the program.

    python -m seed_graph.launch.local --program=examples.population:make_program \\
        --config=cartpole_vtrace --config.population.size=3

`CONFIG_KEYS` adds the `population` section to the config: checked, overridable and
documented (`--print_config`) like every built-in key.
"""

import math
import os

import launchpad as lp
import ml_collections
import numpy as np

import seed_graph as sg
from examples import population_controller

CONFIG_KEYS = {'population': {
    'size': sg.Key(2, 'Members: learners, each with its own actors and evaluators.',
                   lambda v: None if v >= 2 else 'at least 2'),
    'interval_seconds': sg.Key(20.0, 'Seconds between two rounds of exploit and explore.',
                               lambda v: None if v > 0 else 'must be > 0'),
    'ready_frames': sg.Key(20_000, 'A member is ranked once it has trained this many '
                           'frames since it last copied another.',
                           lambda v: None if v >= 0 else 'must be >= 0'),
    'exploit_fraction': sg.Key(0.25, 'Share of the ranked members that copy the best '
                               'ones each round (at least one).',
                               lambda v: None if 0 < v <= 0.5 else 'in (0, 0.5]'),
    'perturb_factors': sg.Key((0.8, 1.2), 'Explore: each copied hyperparameter is '
                              'multiplied by one of these, at random.'),
    'spread': sg.Key(2.0, 'Initial learning rate and entropy cost: log-uniform within '
                     'this factor of the config\'s.',
                     lambda v: None if v >= 1 else 'must be >= 1'),
}}


def member_config(config: ml_collections.ConfigDict, k: int) -> ml_collections.ConfigDict:
  """Member `k`'s config: its own logdir and seeds, its initial hyperparameters."""
  member = ml_collections.ConfigDict(config.to_dict())
  member.logdir = os.path.join(config.logdir, f'member_{k}')
  nodes = config.actors.num + config.evaluators.num + 1
  member.seed = config.seed + 1000 * nodes * k  # Member k's nodes: seeds of their own.
  rng = np.random.default_rng([config.seed, k])
  spread = math.log(config.population.spread)
  for name in ('learning_rate', 'entropy_cost'):
    member.learner[name] = float(config.learner[name] * math.exp(rng.uniform(-spread,
                                                                              spread)))
  return member


def make_program(config: ml_collections.ConfigDict) -> lp.Program:
  # Members perturb and copy learner.learning_rate and learner.entropy_cost, which their
  # algorithm must serve as hyperparameters (sg.Hyperparameters; V-trace does).
  algorithm = sg.algorithm_builder(config)
  if not {'learning_rate', 'entropy_cost'} <= set(config.learner):
    raise sg.ConfigError(f'algorithm: {config.algorithm!r} has no learner.learning_rate '
                         'and learner.entropy_cost for the population to tune')
  program = lp.Program('population')
  learners = []
  for k in range(config.population.size):
    member = member_config(config, k)
    with program.group('learner'):
      learner = program.add_node(sg.LearnerNode(member, algorithm.algorithm))
    sg.add_actors_and_evaluators(program, learner, member)
    learners.append(learner)

  with program.group('controller'):
    program.add_node(lp.PyClassNode(population_controller.PopulationController,
                                    learners, config))
  return program
