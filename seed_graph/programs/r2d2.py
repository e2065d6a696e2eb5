"""R2D2 with central inference:

    replay (Reverb) <-- sequences, samples, priorities -- learner (R2D2)
    learner <-- inference stream -- actors, evaluators

The learner alone writes to the replay and samples from it; actors and evaluators are
those of every program.
"""

import functools

import launchpad as lp

from seed_graph import config_checks
from seed_graph.nodes import r2d2_replay
from seed_graph.nodes.learner_node import LearnerNode
from seed_graph.nodes.r2d2_learner import R2D2Learner
from seed_graph.programs.acting import add_actors_and_evaluators


def make_program(config) -> lp.Program:
  config_checks.validate_r2d2_config(config)
  program = lp.Program('r2d2')

  with program.group('replay'):
    replay = program.add_node(lp.ReverbNode(
        functools.partial(r2d2_replay.make_replay_tables, config),
        checkpoint_ctor=functools.partial(r2d2_replay.make_replay_checkpointer,
                                          config.logdir)))

  with program.group('learner'):
    learner = program.add_node(LearnerNode(config, R2D2Learner, replay))

  add_actors_and_evaluators(program, learner, config)
  return program
