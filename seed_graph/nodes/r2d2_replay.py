"""The R2D2 replay node's side: its one prioritized Reverb table and its checkpointer.

The program builds a `lp.ReverbNode` from `make_replay_tables` and
`make_replay_checkpointer`; the R2D2 learner alone writes sequences into the table and
samples from it. Its checkpoints go to `<logdir>/replay`.
"""

import os
from typing import List

import reverb

from seed_graph import envs
from seed_graph import launcher_watch
from seed_graph import sequences as sequences_lib
from seed_graph.algos import q_networks

TABLE = 'replay'


def sequence_layout(config) -> sequences_lib.SequenceLayout:
  return sequences_lib.SequenceLayout(config.learner.burn_in, config.learner.unroll_length,
                                      config.network.frame_stack)


def replay_signature(config):
  """The replay table's signature (builds the environment and network once)."""
  info = envs.EnvironmentInfo(config.env)
  network = q_networks.make_q_network(config.network, info.num_actions)
  state_size = sum(q_networks.state_sizes(network))
  return sequences_lib.table_signature(sequence_layout(config), info.observation_shape,
                                       info.observation_dtype, state_size)


def make_replay_tables(config) -> List[reverb.Table]:
  """The replay node's tables, from `config.replay` (runs in the replay process)."""
  launcher_watch.watch()
  replay = config.replay
  return [reverb.Table(
      name=TABLE,
      sampler=reverb.selectors.Prioritized(replay.priority_exponent),
      remover=reverb.selectors.Fifo(),
      max_size=replay.capacity,
      rate_limiter=reverb.rate_limiters.SampleToInsertRatio(
          samples_per_insert=replay.samples_per_insert,
          min_size_to_sample=replay.min_size_to_sample,
          error_buffer=float(replay.error_buffer)),
      signature=replay_signature(config))]


def replay_checkpoint_dir(logdir: str) -> str:
  return os.path.join(logdir, 'replay')


def make_replay_checkpointer(logdir: str) -> reverb.checkpointers.DefaultCheckpointer:
  return reverb.checkpointers.DefaultCheckpointer(replay_checkpoint_dir(logdir))
