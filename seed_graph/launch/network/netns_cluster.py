"""`launch.cluster up --backend=netns --hosts=N`: a program on N network-namespace hosts of
this machine, for real (root): the way the multi-host launcher is tested.

The same path as the other backends (`seed_graph.launch.host_agents`: plan, secret, one
agent per host, ordered stop), on hosts `learner, cpu0, cpu1, ...` that are namespaces on
one bridge (`seed_graph.launch.network.netns_hosts`, 10.200.0.1, .2, ...), in the
foreground until the program ends or Ctrl-C. Every namespace and process is removed at
the end, also after a failure.
"""

import signal
import subprocess
from typing import Dict, List, Optional, Sequence, TextIO

from seed_graph.launch import host_agents
from seed_graph.launch.network import netns_hosts


def host_names(num_hosts: int) -> List[str]:
  return ['learner'] + [f'cpu{i}' for i in range(num_hosts - 1)]


class NamespaceHosts:
  """`host_agents.Hosts` on the namespaces of a `netns_hosts.HostNetwork`."""

  def __init__(self, network: netns_hosts.HostNetwork):
    self._network = network

  def start(self, host: str, argv: List[str], env: Dict[str, str],
            output: Optional[TextIO]) -> subprocess.Popen:
    return self._network.run(host, argv, env=env, stdout=output,
                             stderr=subprocess.STDOUT if output else None,
                             start_new_session=True)

  def interrupt(self, host: str, agent: subprocess.Popen) -> None:
    del host  # The agent is a child of this process.
    agent.send_signal(signal.SIGINT)


def up(config_path: str, overrides: Sequence[str], logdir: str, num_hosts: int,
       base_port: int, agent_flags: Sequence[str] = (), grace_seconds: float = 150.0,
       program_spec: str = '') -> int:
  """Runs the program across `num_hosts` namespaces until it ends; the exit code (0 when
  every agent exited cleanly)."""
  hosts = host_names(num_hosts)
  with netns_hosts.HostNetwork(hosts) as network:
    plan_path = host_agents.write_plan([(h, network.addresses[h]) for h in hosts],
                                       config_path, overrides, logdir, base_port,
                                       program_spec)
    print('namespaces: ' + ', '.join(f'{h} {network.namespaces[h]}' for h in hosts),
          flush=True)
    return host_agents.run_agents(NamespaceHosts(network), hosts, plan_path, logdir,
                                  agent_flags, grace_seconds)
