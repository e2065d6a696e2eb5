"""R2D2 with central inference: a Reverb replay node, one learner-inference node, actors,
evaluators. The replay node's handle goes to the learner (which alone writes to it and
samples from it); actors and evaluators are the V-trace ones, unchanged."""

import functools

import launchpad as lp

from seed_graph import config_checks
from seed_graph import layout
from seed_graph.nodes import r2d2_learner
from seed_graph.nodes.actor import ActorNode
from seed_graph.nodes.evaluator import EvaluatorNode


def make_program(config) -> lp.Program:
  config_checks.validate_r2d2_config(config)
  program = lp.Program('r2d2')

  with program.group('replay'):
    replay = program.add_node(lp.ReverbNode(
        functools.partial(r2d2_learner.make_replay_tables, config),
        checkpoint_ctor=functools.partial(r2d2_learner.make_replay_checkpointer,
                                          config.logdir)))

  with program.group('learner'):
    learner = program.add_node(r2d2_learner.R2D2LearnerInferenceNode(config, replay))

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
