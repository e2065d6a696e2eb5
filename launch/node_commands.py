"""A program's nodes as commands, one process each, prepared the way Launchpad's own
local_mp launcher prepares them (`launchpad/launch/local_multi_processing/launch.py`):
launch context, handle connections, address binding, executables. Launchpad then hands
the commands to its worker manager, which has no restart policy; `launch.supervisor`
runs them instead.
"""

import dataclasses
from typing import Dict, List, Mapping, Optional, Tuple

from launchpad import context
import launchpad as lp


@dataclasses.dataclass(frozen=True)
class NodeCommand:
  name: str  # '<group>/<index in group>', e.g. 'actor/1'.
  group: str
  argv: Tuple[str, ...]
  env: Dict[str, str]


def program_commands(program: lp.Program,
                     local_resources: Optional[Mapping[str, object]] = None
                     ) -> List[NodeCommand]:
  """Commands that run every node of `program` on this machine (loopback addresses,
  ports picked now). A command may be run again after its process died: it starts the
  same node on the same ports, from the same serialized node file (which lives as long
  as this process)."""
  local_resources = local_resources or {}
  for label, nodes in program.groups.items():
    for node in nodes:
      # Launchpad 0.5.2 has no public way to prepare nodes without starting them; this
      # is the first of the four steps its local_mp launcher takes.
      node._initialize_context(  # pylint: disable=protected-access
          context.LaunchType.LOCAL_MULTI_PROCESSING,
          launch_config=local_resources.get(label))
  for label, nodes in program.groups.items():
    for node in nodes:
      for handle in node.input_handles:
        handle.connect(node, label)
  for node in program.get_all_nodes():
    node.bind_addresses()
  commands = []
  for label, nodes in program.groups.items():
    for command in nodes[0].to_executables(nodes, label, nodes[0].launch_context):
      commands.append(NodeCommand(command.title, label, tuple(command.command_as_list),
                                  {k: str(v) for k, v in command.env_overrides.items()}))
  return commands
