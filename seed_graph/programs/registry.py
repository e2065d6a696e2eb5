"""The programs a config can name with `config.algorithm`."""

from seed_graph.programs import r2d2
from seed_graph.programs import vtrace

PROGRAMS = {'vtrace': vtrace.make_program, 'r2d2': r2d2.make_program}


def make_program(config):
  """The program `config.algorithm` names, built from (and after checking) `config`."""
  if config.get('algorithm') not in PROGRAMS:
    raise ValueError(f'algorithm: {config.get("algorithm")!r} is not one of '
                     f'{sorted(PROGRAMS)}')
  return PROGRAMS[config.algorithm](config)
