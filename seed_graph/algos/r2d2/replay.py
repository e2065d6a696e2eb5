"""R2D2's replay: one prioritized Reverb table.

The program builds the replay node (`seed_graph.nodes.replay`) from `make_replay_tables`
(the builder's `replay_tables`); the R2D2 learner alone writes sequences into the table
and samples from it.
"""

from typing import List

import reverb
import ml_collections

from seed_graph.algos import base
from seed_graph.algos.r2d2 import networks
from seed_graph.algos.r2d2 import sequences as sequences_lib

TABLE = 'replay'


def sequence_layout(config: ml_collections.ConfigDict) -> sequences_lib.SequenceLayout:
  return sequences_lib.SequenceLayout(config.learner.burn_in, config.learner.unroll_length,
                                      config.env.frame_stack)


def replay_signature(config: ml_collections.ConfigDict, spec: base.EnvironmentSpec):
  """The replay table's signature (builds the network once)."""
  network = networks.make_q_network(config.network, spec.num_actions)
  state_size = sum(networks.state_sizes(network))
  return sequences_lib.table_signature(sequence_layout(config), spec.observation_shape,
                                       spec.observation_dtype, state_size)


def make_replay_tables(config: ml_collections.ConfigDict,
                       spec: base.EnvironmentSpec) -> List[reverb.Table]:
  """The replay node's tables, from `config.replay` (runs in the replay process)."""
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
      signature=replay_signature(config, spec))]
