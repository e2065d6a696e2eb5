"""From `config.algorithm` to the algorithm's `AlgorithmBuilder`, and what depends on it:
the config's keys, their defaults and their checks.

`config.algorithm` names a built-in algorithm by its folder in `seed_graph/algos/`
(`vtrace`, `r2d2`), or one of your own by its module (`examples.my_algorithm`); either
exports `BUILDER`. A new built-in algorithm is a new folder there, with nothing to
register.
"""

import pkgutil
from typing import List, Optional

import ml_collections

from seed_graph import algos
from seed_graph.config import schema as config_schema
from seed_graph.algos.base import EnvironmentSpec
from seed_graph.algos.builder import AlgorithmBuilder
from seed_graph.config import import_strings
from seed_graph.config.schema import ConfigError
from seed_graph.programs import config as program_config


def built_in() -> List[str]:
  """The names of the algorithms of `seed_graph/algos/`."""
  return sorted(module.name for module in pkgutil.iter_modules(algos.__path__)
                if module.ispkg)


def algorithm_builder(config_or_name) -> AlgorithmBuilder:
  """The builder `config.algorithm` (or a name) names; ConfigError (one line) if none."""
  name = config_or_name if isinstance(config_or_name, str) else config_or_name.algorithm
  if '.' not in name and name not in built_in():
    raise ConfigError(f'algorithm: {name!r} is not one of {built_in()}, nor a module '
                      'of one\'s own (e.g. examples.my_algorithm)')
  module_name = name if '.' in name else f'{algos.__name__}.{name}'
  try:
    module = import_strings.import_module(module_name, 'algorithm')
  except ValueError as error:
    raise ConfigError(str(error)) from None
  found = getattr(module, 'BUILDER', None)
  if not isinstance(found, AlgorithmBuilder):
    raise ConfigError(f'algorithm: {module_name} has no BUILDER (an AlgorithmBuilder)')
  return found


def schema(config: ml_collections.ConfigDict,
           program_keys: Optional[config_schema.Schema] = None) -> config_schema.Schema:
  """Every key `config`'s algorithm declares, for its environment, and the sections a
  program of one's own adds (`program_keys`: its module's `CONFIG_KEYS`)."""
  keys = program_config.schema(config, algorithm_builder(config).schema)
  clash = sorted(set(program_keys or {}) & set(keys))
  if clash:
    raise ConfigError(f'{clash[0]}: a program\'s CONFIG_KEYS may add sections, not '
                      'redefine the built-in ones')
  return {**keys, **(program_keys or {})}


def default_config(algorithm: str = 'vtrace', env: str = 'cartpole'
                   ) -> ml_collections.ConfigDict:
  """Every key of `algorithm` on environment `env`, at its default: the start of every
  preset in `seed_graph/configs/`."""
  return program_config.defaults(env, algorithm_builder(algorithm).schema, algorithm)


def validate_config(config: ml_collections.ConfigDict,
                    program_keys: Optional[config_schema.Schema] = None) -> EnvironmentSpec:
  """Raises ConfigError naming the first bad key of `config` (for its program), before
  anything starts; returns the spec of the environment its actors step."""
  return program_config.validate(config, algorithm_builder(config),
                                 schema(config, program_keys))
