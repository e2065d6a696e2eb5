"""The processes of a running program, by node name, found under its launcher."""

from typing import Dict

import psutil

from seed_graph.launch.supervision import node_process


def node_processes(launcher: psutil.Process) -> Dict[str, psutil.Process]:
  """{'launcher': the launcher, node name ('learner/0', 'actor/1', ...): its process},
  each node known by the name its supervisor gave it in its environment."""
  found = {'launcher': launcher}
  for child in launcher.children(recursive=True):
    try:
      name = child.environ().get(node_process.NODE_NAME_VARIABLE)
    except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
      continue
    if name:
      found[name] = child
  return found
