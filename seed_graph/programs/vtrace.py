"""V-trace (IMPALA) with central inference:

    learner (V-trace) <-- inference stream -- actors, evaluators
"""

import launchpad as lp

from seed_graph import config_checks
from seed_graph.nodes.learner_node import LearnerNode
from seed_graph.nodes.vtrace_learner import VTraceLearner
from seed_graph.programs.acting import add_actors_and_evaluators


def make_program(config) -> lp.Program:
  config_checks.validate_vtrace_config(config)
  program = lp.Program('vtrace')

  with program.group('learner'):
    learner = program.add_node(LearnerNode(config, VTraceLearner))

  add_actors_and_evaluators(program, learner, config)
  return program
