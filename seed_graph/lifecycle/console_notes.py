"""A line a node means for the person watching the launcher's console.

A node's whole output goes to its log file; the launcher's console shows only its
warnings, errors and tracebacks (`seed_graph.launch.supervision.console`). An event that is
neither, but that a person watching a run wants to see as it happens (a population member
copying another), is written with `tell_console`: the launcher shows it as
`[<node>] <text>`, and the log keeps it with its marker.
"""

MARKER = 'CONSOLE: '


def tell_console(text: str) -> None:
  """Writes `text` (one line) to this node's output, marked for the launcher's console."""
  print(MARKER + ' '.join(text.split('\n')), flush=True)
