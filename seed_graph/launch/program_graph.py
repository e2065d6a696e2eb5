r"""A picture of a program: its nodes grouped by kind, each edge labelled with what
travels on it, as Graphviz DOT (and SVG, where Graphviz's `dot` is installed).

  python -m seed_graph.launch.program_graph --config=cartpole_r2d2 --output=/tmp/r2d2 \
      [--config.actors.num=4 ...]

writes /tmp/r2d2.dot and /tmp/r2d2.svg. `launch.local` writes the same picture of the
program it starts to `<logdir>/program.dot` (and `.svg`). An edge points from the node
that calls to the node that serves, as the program's handles say.
"""

import os
import shutil
import subprocess
import sys
from typing import List, Sequence

from absl import app
from absl import flags
import launchpad as lp

from seed_graph.config import schema as config_schema
from seed_graph.launch import placement
from seed_graph.launch.runs import config_args
from seed_graph.nodes import launchpad_private as private

# What travels on an edge, by the type of the handle the calling node holds.
EDGE_LABELS = {
    'LearnerHandle': 'inference stream (gRPC)\\ncontrol (Courier)',
    'ReverbHandle': 'Reverb (insert, sample, priorities)',
    'CourierHandle': 'Courier',
}


def program_dot(program: lp.Program) -> str:
  """The program as a DOT digraph: one cluster per group, one edge per handle."""
  names = {id(node): name for name, node in placement.node_names(program)}
  served_by = {}
  for group, nodes in program.groups.items():
    for node in nodes:
      for handle in private.created_handles(node):
        served_by[id(handle)] = names[id(node)]
  lines = [f'digraph "{program.name}" {{', '  rankdir=LR;',
           '  node [shape=box, style=rounded, fontname="Helvetica"];',
           '  edge [fontname="Helvetica", fontsize=10];']
  for group, nodes in program.groups.items():
    kind = type(nodes[0]).__name__
    lines.append(f'  subgraph "cluster_{group}" {{')
    lines.append(f'    label="{group} ({len(nodes)} x {kind})";')
    for index in range(len(nodes)):
      lines.append(f'    "{group}/{index}";')
    lines.append('  }')
  for group, nodes in program.groups.items():
    for node in nodes:
      for handle in node.input_handles:
        label = EDGE_LABELS.get(type(handle).__name__, type(handle).__name__)
        server = served_by.get(id(handle), '?')
        lines.append(f'  "{names[id(node)]}" -> "{server}" [label="{label}"];')
  lines.append('}')
  return '\n'.join(lines) + '\n'


def write(program: lp.Program, path_stem: str) -> List[str]:
  """Writes `<path_stem>.dot`, and `.svg` if Graphviz is installed; the paths written."""
  os.makedirs(os.path.dirname(os.path.abspath(path_stem)), exist_ok=True)
  written = [path_stem + '.dot']
  with open(written[0], 'w') as f:
    f.write(program_dot(program))
  if shutil.which('dot'):
    result = subprocess.run(['dot', '-Tsvg', written[0], '-o', path_stem + '.svg'],
                            capture_output=True, text=True, check=False)
    if result.returncode == 0:
      written.append(path_stem + '.svg')
  return written


def main(argv: Sequence[str]):
  del argv
  from seed_graph.programs import central_inference  # pylint: disable=g-import-not-at-top
  try:
    config = config_args.load(_CONFIG.value, _OVERRIDES)
  except config_schema.ConfigError as error:
    print(f'error: {error}', file=sys.stderr, flush=True)
    return 2
  config.logdir = config.logdir or '/tmp/seed_graph_program_graph'
  paths = write(central_inference.make_program(config), _OUTPUT.value)
  print('wrote ' + ', '.join(paths) + ('' if len(paths) > 1 else
        ' (install Graphviz for an SVG: apt-get install graphviz)'), flush=True)


if __name__ == '__main__':
  _CONFIG = flags.DEFINE_string('config', None, 'Experiment config (a preset\'s name or a '
                                '.py file); '
                                '--config.KEY=VALUE overrides a key.')
  _OVERRIDES = []
  _OUTPUT = flags.DEFINE_string('output', 'program', 'Path without extension.')
  flags.mark_flags_as_required(['config'])
  sys.exit(app.run(main, flags_parser=lambda argv: flags.FLAGS(
      config_args.take_overrides(argv, _OVERRIDES))))
