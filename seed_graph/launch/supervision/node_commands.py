"""A program's nodes as commands, one process each, prepared the way Launchpad's own
local_mp launcher prepares them (`launchpad/launch/local_multi_processing/launch.py`):
launch context, handle connections, address binding, executables. Launchpad then hands
the commands to its worker manager, which has no restart policy; `supervisor.py` runs them
instead. Each command's environment says which GPUs its process sees
(`seed_graph.launch.runs.cuda_libraries`); a node bound to a Unix socket starts in a
network namespace of its own.
"""

import dataclasses
from typing import Callable, Dict, List, Mapping, Optional, Tuple

from absl import flags
from launchpad import context
import launchpad as lp
from launchpad.nodes.python import local_multi_processing
import ml_collections
from ml_collections import config_flags

from seed_graph.launch.runs import cuda_libraries
from seed_graph.nodes import launchpad_private as private
from seed_graph.nodes import replay_socket


# What the supervisor does with a node (`supervisor.py`) follows its role, which a node
# type declares as `SUPERVISION_ROLE`: 'acting' (actors, evaluators: always restarted,
# stopped first), 'learner' (restarted a few times; a clean exit ends the program; stopped
# after the acting nodes), 'store' (the replay: restarted a few times, stopped last).
# Any other node type (a program's own) is 'other', handled as a store.
ROLES = ('acting', 'learner', 'store', 'other')


@dataclasses.dataclass(frozen=True)
class NodeCommand:
  name: str  # '<group>/<index in group>', e.g. 'actor/1'.
  group: str
  argv: Tuple[str, ...]
  env: Dict[str, str]
  role: str = 'other'  # One of ROLES.


def node_role(node) -> str:
  role = getattr(node, 'SUPERVISION_ROLE', 'other')
  if role not in ROLES:
    raise ValueError(f'{type(node).__name__}.SUPERVISION_ROLE={role!r}; one of {ROLES}')
  return role


# Launchpad 0.5.2 defect: passing any known flag to node processes (PythonProcess args)
# looks up a flag `lp_dummy_config` that launchpad never defines (KeyError). Defining
# it here, unused, makes `stop_grace_resources` work.
if 'lp_dummy_config' not in flags.FLAGS:
  config_flags.DEFINE_config_dict('lp_dummy_config', ml_collections.ConfigDict(),
                                  'Unused; works around a Launchpad 0.5.2 defect.')


def stop_grace_resources(program: lp.Program, grace_seconds: int):
  """local_mp launch configs that give every node `grace_seconds` to stop.

  Launchpad 0.5.2 reads `--lp_termination_notice_secs` in each process's own worker
  manager (the launcher and every node), so the value must reach the node processes
  as a command-line argument, not only this process's flags.
  """
  return {label: local_multi_processing.PythonProcess(
              args={'lp_termination_notice_secs': grace_seconds})
          for label in program.groups}


def _bind_locally(program: lp.Program):
  for node in program.get_all_nodes():
    node.bind_addresses()  # Launchpad's own: localhost, ports picked now.


def program_commands(program: lp.Program,
                     local_resources: Optional[Mapping[str, object]] = None,
                     bind_addresses: Callable[[lp.Program], None] = _bind_locally
                     ) -> List[NodeCommand]:
  """Commands that run every node of `program` on this machine, with its addresses
  bound by `bind_addresses` (default: loopback, ports picked now; a multi-host plan binds
  them to its hosts and ports). A command may be run again after its process died: it
  starts the same node on the same ports, from the same serialized node file (which
  lives as long as this process)."""
  local_resources = local_resources or {}
  for label, nodes in program.groups.items():
    for node in nodes:
      private.initialize_context(node, context.LaunchType.LOCAL_MULTI_PROCESSING,
                                 launch_config=local_resources.get(label))
  for label, nodes in program.groups.items():
    for node in nodes:
      for handle in node.input_handles:
        handle.connect(node, label)
  bind_addresses(program)
  commands = []
  for label, nodes in program.groups.items():
    executables = nodes[0].to_executables(nodes, label, nodes[0].launch_context)
    for node, command in zip(nodes, executables):  # One process per node.
      role = node_role(nodes[0])
      env = {k: str(v) for k, v in command.env_overrides.items()}
      env.update(cuda_libraries.node_environment(role))  # Only a learner sees GPUs.
      commands.append(NodeCommand(command.title, label,
                                  _namespace_prefix(node) + tuple(command.command_as_list),
                                  env, role))
  return commands


def _namespace_prefix(node) -> Tuple[str, ...]:
  """A node bound to a Unix socket runs in a network namespace of its own, where its
  ports face no network (`seed_graph.nodes.replay_socket`)."""
  private = any(replay_socket.is_private(address.resolve()) for address in node.addresses)
  return replay_socket.NAMESPACE_COMMAND if private else ()
