"""R2D2 with central inference:

    replay (Reverb) <-- sequences, samples, priorities -- learner (R2D2)
    learner <-- inference stream -- actors, evaluators

The learner alone writes to the replay and samples from it; actors and evaluators are
those of every program, stepping single frames (the learner stacks them).
"""

import functools

import launchpad as lp

from seed_graph import envs
from seed_graph.algos.r2d2 import config as r2d2_config
from seed_graph.algos.r2d2 import replay as replay_lib
from seed_graph.algos.r2d2.learning import R2D2Learner
from seed_graph.nodes.learner_node import LearnerNode
from seed_graph.nodes.replay import ReplayNode
from seed_graph.programs import config as program_config
from seed_graph.programs.acting import add_actors_and_evaluators

ALGORITHM = R2D2Learner
CONFIG = r2d2_config


def make_program(config) -> lp.Program:
  spec = program_config.validate(config, CONFIG, ALGORITHM)
  program = lp.Program('r2d2')

  with program.group('replay'):
    replay = program.add_node(ReplayNode(
        functools.partial(replay_lib.make_replay_tables, config, spec),
        replay_lib.replay_checkpoint_dir(config.logdir)))

  with program.group('learner'):
    learner = program.add_node(LearnerNode(config, R2D2Learner, replay))

  add_actors_and_evaluators(program, learner, config,
                            envs.acting_config(config.env, R2D2Learner.stacks_frames))
  return program
