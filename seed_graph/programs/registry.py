"""The built-in programs, by the name `config.algorithm` gives: each is a module with
`make_program(config)`, its `ALGORITHM` (the learner's algorithm class) and `CONFIG`
(the algorithm's config keys and checks). A third algorithm is one line here."""

from types import ModuleType
from typing import Dict, Optional

import launchpad as lp
import ml_collections

from seed_graph import config_schema
from seed_graph.config_schema import ConfigError
from seed_graph.programs import config as program_config
from seed_graph.programs import r2d2
from seed_graph.programs import vtrace

PROGRAMS: Dict[str, ModuleType] = {'vtrace': vtrace, 'r2d2': r2d2}


def program(config_or_name) -> ModuleType:
  """The program module of `config.algorithm` (or of a name); ConfigError if unknown."""
  name = config_or_name if isinstance(config_or_name, str) else config_or_name.algorithm
  if name not in PROGRAMS:
    raise ConfigError(f'algorithm: {name!r} is not one of {sorted(PROGRAMS)}')
  return PROGRAMS[name]


def schema(config, program_keys: Optional[config_schema.Schema] = None
           ) -> config_schema.Schema:
  """Every key `config`'s algorithm declares, for its environment, and the sections a
  program of one's own adds (`program_keys`: its module's `CONFIG_KEYS`)."""
  keys = program_config.schema(config, program(config).CONFIG.SCHEMA)
  clash = sorted(set(program_keys or {}) & set(keys))
  if clash:
    raise ConfigError(f'{clash[0]}: a program\'s CONFIG_KEYS may add sections, not '
                      'redefine the built-in ones')
  return {**keys, **(program_keys or {})}


def default_config(algorithm: str = 'vtrace', env: str = 'cartpole'
                   ) -> ml_collections.ConfigDict:
  """Every key of the built-in program `algorithm` on environment `env`, at its
  default: the start of every preset in `seed_graph/configs/`."""
  return program_config.defaults(env, program(algorithm).CONFIG.SCHEMA, algorithm)


def make_program(config) -> lp.Program:
  """The program `config.algorithm` names, built from (and after checking) `config`."""
  return program(config).make_program(config)


def validate_config(config, program_keys: Optional[config_schema.Schema] = None):
  """Raises ConfigError naming the first bad key of `config` (for its program), before
  anything starts; returns the spec of the environment its actors step."""
  module = program(config)
  return program_config.validate(config, module.CONFIG, module.ALGORITHM,
                                 schema(config, program_keys))
