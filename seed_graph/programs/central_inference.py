"""SEED RL's program, for any algorithm (`config.algorithm`, `seed_graph.algos.builder`):

    learner (the algorithm) <-- inference stream -- actors, evaluators
    replay (Reverb) <-- the learner's writes and samples (an algorithm with replay only)

Actors step single frames when the learner stacks them (R2D2's `stacks_frames`).
"""

import functools

import launchpad as lp
import ml_collections

from seed_graph import envs
from seed_graph.nodes.learner.node import LearnerNode
from seed_graph.nodes.replay import ReplayNode
from seed_graph.nodes.replay import replay_checkpoint_dir
from seed_graph.programs import registry
from seed_graph.programs.acting import add_actors_and_evaluators


def make_program(config: ml_collections.ConfigDict) -> lp.Program:
  spec = registry.validate_config(config)
  algorithm = registry.algorithm_builder(config)
  program = lp.Program(algorithm.name)

  learner_args = []
  if algorithm.uses_replay:
    with program.group('replay'):
      learner_args.append(program.add_node(ReplayNode(
          functools.partial(algorithm.replay_tables, config, spec),
          replay_checkpoint_dir(config.logdir))))

  with program.group('learner'):
    learner = program.add_node(LearnerNode(config, algorithm.algorithm, *learner_args))

  add_actors_and_evaluators(program, learner, config,
                            envs.acting_config(config.env, algorithm.stacks_frames))
  return program
