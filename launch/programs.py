"""The programs a config can name with `config.algorithm`."""

from seed_graph.programs import r2d2
from seed_graph.programs import vtrace

_PROGRAMS = {'vtrace': vtrace.make_program, 'r2d2': r2d2.make_program}


def make_program(config):
  if config.get('algorithm') not in _PROGRAMS:
    raise ValueError(f'algorithm: {config.get("algorithm")!r} is not one of '
                     f'{sorted(_PROGRAMS)}')
  return _PROGRAMS[config.algorithm](config)
