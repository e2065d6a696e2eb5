"""The acting side of every program: actors and evaluators on the learner's inference
edge, one Launchpad group each.

Seeds: actor i (from 0) uses `seed + 1000 * (i + 1)`, evaluator j uses
`seed + 1000 * (actors.num + j + 1)`; each environment adds its index within the node.
"""

import launchpad as lp

from seed_graph import env_ids
from seed_graph.nodes.actor import ActorNode
from seed_graph.nodes.evaluator import EvaluatorNode


def add_actors_and_evaluators(program: lp.Program, learner, config):
  """Adds `actors.num` actors and `evaluators.num` evaluators fed by `learner`."""
  with program.group('actor'):
    for i in range(config.actors.num):
      program.add_node(ActorNode(learner, config.env, env_ids.actor_env_ids(config, i),
                                 seed=config.seed + 1000 * (i + 1),
                                 env_groups=config.actors.env_groups))

  with program.group('evaluator'):
    for i in range(config.evaluators.num):
      program.add_node(EvaluatorNode(learner, config.env,
                                     env_ids.evaluator_env_ids(config, i),
                                     seed=config.seed + 1000 * (config.actors.num + i + 1)))
