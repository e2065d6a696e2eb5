"""The evaluator node: an actor whose steps are flagged for evaluation.

It uses the same inference edge; the learner acts greedily for it (or with
`evaluators.epsilon`), never trains on its steps, and reports its episodes as
`eval_episode_return`.
"""

from typing import Sequence

from launchpad.nodes.python import node as python_node
import ml_collections

from seed_graph.nodes import actor


class EvaluatorNode(python_node.PyClassNode):
  """`EvaluatorNode(learner_handle, env_config, env_ids, seed)`."""
  SUPERVISION_ROLE = 'acting'  # Always restarted, stopped first (launch.supervision).

  def __init__(self, learner, env_config: ml_collections.ConfigDict, env_ids: Sequence[int],
               seed: int):
    super().__init__(actor.Actor, learner, env_config, list(env_ids), seed, is_eval=True)
