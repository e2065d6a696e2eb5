"""V-trace (IMPALA) with central inference:

    learner (V-trace) <-- inference stream -- actors, evaluators
"""

import launchpad as lp

from seed_graph.algos.vtrace import config as vtrace_config
from seed_graph.algos.vtrace.learning import VTraceLearner
from seed_graph.nodes.learner_node import LearnerNode
from seed_graph.programs import config as program_config
from seed_graph.programs.acting import add_actors_and_evaluators

ALGORITHM = VTraceLearner
CONFIG = vtrace_config


def make_program(config) -> lp.Program:
  program_config.validate(config, CONFIG, ALGORITHM)
  program = lp.Program('vtrace')

  with program.group('learner'):
    learner = program.add_node(LearnerNode(config, VTraceLearner))

  add_actors_and_evaluators(program, learner, config)
  return program
