"""The acting side of every program: actors and evaluators on the learner's inference
edge, one Launchpad group each.

Seeds: actor i (from 0) uses `seed + 1000 * (i + 1)`, evaluator j uses
`seed + 1000 * (actors.num + j + 1)`; each environment adds its index within the node.
"""

from typing import Optional, Sequence

import launchpad as lp
import ml_collections

from seed_graph.config import id_ranges
from seed_graph.nodes.actor import ActorNode
from seed_graph.nodes.evaluator import EvaluatorNode


def add_actors_and_evaluators(program: lp.Program, learner,
                              config: ml_collections.ConfigDict,
                              env_config: Optional[ml_collections.ConfigDict] = None,
                              actors: Optional[Sequence[int]] = None,
                              evaluators: Optional[Sequence[int]] = None):
  """Adds actors and evaluators fed by `learner`, on `env_config` (default `config.env`):
  those with the indices `actors` and `evaluators` (default: all `actors.num` and
  `evaluators.num`; a program that gives different environments to different ones
  passes a share each). Their environment ids are `seed_graph.config.id_ranges`'."""
  env_config = config.env if env_config is None else env_config
  with program.group('actor'):
    for i in range(config.actors.num) if actors is None else actors:
      program.add_node(ActorNode(learner, env_config, id_ranges.actor_env_ids(config, i),
                                 seed=config.seed + 1000 * (i + 1),
                                 env_groups=config.actors.env_groups))

  with program.group('evaluator'):
    for i in range(config.evaluators.num) if evaluators is None else evaluators:
      program.add_node(EvaluatorNode(learner, env_config,
                                     id_ranges.evaluator_env_ids(config, i),
                                     seed=config.seed + 1000 * (config.actors.num + i + 1)))
