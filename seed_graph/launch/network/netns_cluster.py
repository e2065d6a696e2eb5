"""`launch.cluster up --backend=netns --hosts=N`: a program on N network-namespace hosts of
this machine, for real (root): the way the multi-host launcher is tested.

The same path as the cloud, minus the cloud: hosts `learner, cpu0, cpu1, ...` are
namespaces on one bridge (`seed_graph.launch.network.netns_hosts`, 10.200.0.1, .2, ...); the placement plan
(`launch.placement`: the learner, the replay node and evaluators on the learner host,
actors round-robin on the others) goes to `<logdir>/hosts/plan.json` with a fresh run
secret; each host runs its `launch.host` agent inside its namespace. The learner host's
output is this console; the others' go to `<logdir>/hosts/<host>.log`. The run ends when
every agent has exited (at `total_environment_frames` they stop by themselves); Ctrl-C or
SIGTERM stops the actor hosts first, then the learner host (which saves). Every
namespace and process is removed at the end, also after a failure.
"""

import os
import secrets
import signal
import subprocess
import sys
import time
from typing import Dict, List, Sequence

from seed_graph.launch.network import netns_hosts
from seed_graph.launch import placement
from seed_graph.inference import transport

# After the learner host's agent has exited, the others get this long to notice and stop.
_ACTOR_HOST_GRACE_SECONDS = 60.0


def host_names(num_hosts: int) -> List[str]:
  return ['learner'] + [f'cpu{i}' for i in range(num_hosts - 1)]


def _make_plan(network, hosts, config_path, overrides, logdir: str, base_port,
               program_spec: str) -> str:
  # Validates the config: PlanError if bad.
  config, program = placement.load_program(config_path, overrides, logdir, program_spec)
  plan = placement.make_plan(
      program, config, config_path, overrides, (hosts[0], network.addresses[hosts[0]]),
      [(h, network.addresses[h]) for h in hosts[1:]], base_port, program_spec)
  plan_dir = os.path.join(logdir, 'hosts')
  os.makedirs(plan_dir, exist_ok=True)
  path = os.path.join(plan_dir, 'plan.json')
  plan.save(path)
  print('\n'.join(plan.describe()), flush=True)
  print('namespaces: ' + ', '.join(f'{h} {network.namespaces[h]}' for h in hosts), flush=True)
  return path


def _start_agents(network, hosts, plan_path, logdir: str,
                  agent_flags: Sequence[str]) -> Dict[str, subprocess.Popen]:
  env = dict(os.environ, **{transport.RUN_SECRET_VARIABLE: secrets.token_urlsafe(24)})
  agents = {}
  for host in hosts:
    output = None if host == hosts[0] else open(
        os.path.join(logdir, 'hosts', f'{host}.log'), 'a')
    agents[host] = network.run(
        host, [sys.executable, '-m', 'seed_graph.launch.host', f'--plan={plan_path}',
               f'--host={host}', *agent_flags],
        env=env, stdout=output, stderr=subprocess.STDOUT if output else None,
        # Its own session: a Ctrl-C at the terminal reaches this process only, which
        # then stops the hosts in order.
        start_new_session=True)
  return agents


def _wait(agents: Dict[str, subprocess.Popen], learner_host: str) -> bool:
  """Waits until every agent has exited; returns whether a stop was asked for."""
  stop = {'asked': False}
  previous = {s: signal.signal(s, lambda *_: stop.update(asked=True))
              for s in (signal.SIGINT, signal.SIGTERM)}
  learner_exited_at = None
  try:
    while any(agent.poll() is None for agent in agents.values()):
      if stop['asked']:
        break
      if learner_exited_at is None and agents[learner_host].poll() is not None:
        learner_exited_at = time.monotonic()
      if (learner_exited_at is not None and
          time.monotonic() - learner_exited_at > _ACTOR_HOST_GRACE_SECONDS):
        break  # The actor hosts did not stop by themselves: stop them.
      time.sleep(0.5)
  finally:
    for signum, handler in previous.items():
      signal.signal(signum, handler)
  return stop['asked']


def _stop(agents: Dict[str, subprocess.Popen], learner_host: str, grace_seconds: float):
  """Ctrl-C to the actor hosts' agents, then the learner host's (it saves last)."""
  order = [h for h in agents if h != learner_host] + [learner_host]
  for host in order:
    if agents[host].poll() is None:
      agents[host].send_signal(signal.SIGINT)
      try:
        agents[host].wait(timeout=grace_seconds)
      except subprocess.TimeoutExpired:
        agents[host].kill()


def up(config_path: str, overrides: Sequence[str], logdir: str, num_hosts: int,
       base_port: int, agent_flags: Sequence[str] = (), grace_seconds: float = 150.0,
       program_spec: str = '') -> int:
  """Runs the program across `num_hosts` namespaces until it ends; the exit code (0 when
  every agent exited cleanly)."""
  hosts = host_names(num_hosts)
  with netns_hosts.HostNetwork(hosts) as network:
    plan_path = _make_plan(network, hosts, config_path, overrides, logdir, base_port,
                           program_spec)
    agents = _start_agents(network, hosts, plan_path, logdir, agent_flags)
    try:
      if _wait(agents, hosts[0]):
        print('[cluster] stopping: actor hosts first, then the learner host', flush=True)
      _stop(agents, hosts[0], grace_seconds)
    finally:
      for agent in agents.values():
        if agent.poll() is None:
          agent.kill()
    codes = {host: agent.wait() for host, agent in agents.items()}
  failed = {h: c for h, c in codes.items() if c != 0}
  if failed:
    print(f'[cluster] agents that failed: {failed} (logs in {logdir}/hosts/)', flush=True)
  return 1 if failed else 0
