"""V-trace (IMPALA) with central inference: one learner-inference node, actors, evaluators."""

import launchpad as lp

from seed_graph import config_checks
from seed_graph import layout
from seed_graph.nodes.actor import ActorNode
from seed_graph.nodes.evaluator import EvaluatorNode
from seed_graph.nodes.learner import LearnerInferenceNode


def make_program(config) -> lp.Program:
  config_checks.validate_vtrace_config(config)
  program = lp.Program('vtrace')

  with program.group('learner'):
    learner = program.add_node(LearnerInferenceNode(config))

  with program.group('actor'):
    for i in range(config.actors.num):
      program.add_node(ActorNode(learner, config.env, layout.actor_env_ids(config, i),
                                 seed=config.seed + 1000 * (i + 1),
                                 env_groups=config.actors.env_groups))

  with program.group('evaluator'):
    for i in range(config.evaluators.num):
      program.add_node(EvaluatorNode(learner, config.env,
                                     layout.evaluator_env_ids(config, i),
                                     seed=config.seed + 1000 * (config.actors.num + i + 1)))

  return program
