"""An algorithm as the rest of seed_graph sees it: one `AlgorithmBuilder`.

Each algorithm's package exports one, as `BUILDER` (`seed_graph/algos/vtrace/__init__.py`,
`seed_graph/algos/r2d2/__init__.py`; one of your own anywhere importable, named by
`config.algorithm = 'your.module'`). Programs, `launch.eval`, the benchmarks and the
config checks ask it what to build, and name no algorithm themselves
(`seed_graph.programs.registry` finds the builder from `config.algorithm`).

What the framework gives every algorithm, it declares once itself: the `network` keys of
the shared torsos (`networks.NETWORK_KEYS`) and the learner's device split
(`learner_devices.DEVICE_KEYS`); an algorithm's `schema` adds its own keys to those
sections, or sections of its own.
"""

import dataclasses
from typing import Any, Callable, List, Optional
import ml_collections

from seed_graph.config import schema as config_schema
from seed_graph.algos import base


def _no_check(config: ml_collections.ConfigDict, spec: base.EnvironmentSpec) -> None:
  del config, spec


@dataclasses.dataclass(frozen=True)
class AlgorithmBuilder:
  """What a program needs to know to run an algorithm.

  name: the program's name (a built-in algorithm's is what `config.algorithm` says).
  algorithm: builds it in the learner's process, `algorithm(config, context, *args)`
    (`seed_graph.algos.base`: usually the `Algorithm` subclass itself); its
    `stacks_frames` says whether actors step single frames.
  schema: its config sections (`{'learner': {...}, ...}` of `config_schema.Key`s).
  check: `check(config, spec)` raises `ConfigError` on what single keys cannot say.
  replay_tables: for an algorithm that learns from a replay its learner alone writes
    and samples, `replay_tables(config, spec)` makes the Reverb tables (in the replay's
    own process): the program then adds a replay node, checkpointed with the run, and
    `algorithm` gets its `reverb.Client` (or its address) as its one argument.
  """
  name: str
  algorithm: Callable[..., base.Algorithm]
  schema: config_schema.Schema
  check: Callable[[Any, base.EnvironmentSpec], None] = _no_check
  replay_tables: Optional[Callable[[Any, base.EnvironmentSpec], List[Any]]] = None

  @property
  def stacks_frames(self) -> bool:
    return bool(getattr(self.algorithm, 'stacks_frames', False))

  @property
  def uses_replay(self) -> bool:
    return self.replay_tables is not None
