"""One run's `launch.host` agents, one per host, whatever starts them: the part every
multi-host backend shares (network namespaces, Slurm, SSH).

A backend says where its hosts are (names and addresses) and how a command starts on one
and is asked to stop (`Hosts`). Given those, this writes the placement plan
(`launch.placement`: the learner, the replay node and evaluators on the first host,
actors round-robin on the others) to `<logdir>/hosts/plan.json`, makes a fresh run secret
that reaches the agents in their environment only (never a command line, never a file),
starts every agent (the first host's output is this console, the others' go to
`<logdir>/hosts/<host>.log`) and waits until every agent has exited: at
`total_environment_frames` they stop by themselves. Ctrl-C or SIGTERM asks the actor
hosts to stop first, then the learner host (which saves its checkpoint last).
"""

import os
import secrets
import signal
import subprocess
import sys
import time
from typing import Dict, List, Optional, Protocol, Sequence, TextIO, Tuple

from seed_graph.inference import transport
from seed_graph.launch import placement

# After the learner host's agent has exited, the others get this long to notice and stop.
ACTOR_HOST_GRACE_SECONDS = 60.0


class Hosts(Protocol):
  """How a backend starts a command on one of its hosts and asks it to stop."""

  def start(self, host: str, argv: List[str], env: Dict[str, str],
            output: Optional[TextIO]) -> subprocess.Popen:
    """Starts `argv` on `host` (output None: this console) in its own session, so that a
    Ctrl-C at the terminal reaches the launcher only, which then stops hosts in order."""

  def interrupt(self, host: str, agent: subprocess.Popen) -> None:
    """Asks the agent on `host` for an ordered stop (its Ctrl-C)."""


def write_plan(hosts: Sequence[Tuple[str, str]], config_path: str,
               overrides: Sequence[str], logdir: str, base_port: int,
               program_spec: str = '') -> str:
  """Plans the program on `hosts` ((name, address), the learner's host first) and saves
  the plan in the logdir; its path. Raises PlanError for a bad config."""
  config, program = placement.load_program(config_path, overrides, logdir, program_spec)
  plan = placement.make_plan(program, config, config_path, overrides, hosts[0],
                             hosts[1:], base_port, program_spec)
  plan_dir = os.path.join(logdir, 'hosts')
  os.makedirs(plan_dir, exist_ok=True)
  path = os.path.join(plan_dir, 'plan.json')
  plan.save(path)
  print('\n'.join(plan.describe()), flush=True)
  return path


def _start(backend: Hosts, hosts: Sequence[str], plan_path: str, logdir: str,
           agent_flags: Sequence[str]) -> Dict[str, subprocess.Popen]:
  env = dict(os.environ, **{transport.RUN_SECRET_VARIABLE: secrets.token_urlsafe(24)})
  agents = {}
  for host in hosts:
    output = None if host == hosts[0] else open(
        os.path.join(logdir, 'hosts', f'{host}.log'), 'a')
    agents[host] = backend.start(
        host, [sys.executable, '-m', 'seed_graph.launch.host', f'--plan={plan_path}',
               f'--host={host}', *agent_flags], env, output)
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
          time.monotonic() - learner_exited_at > ACTOR_HOST_GRACE_SECONDS):
        break  # The actor hosts did not stop by themselves: stop them.
      time.sleep(0.5)
  finally:
    for signum, handler in previous.items():
      signal.signal(signum, handler)
  return stop['asked']


def _stop(backend: Hosts, agents: Dict[str, subprocess.Popen], learner_host: str,
          grace_seconds: float):
  """Asks the actor hosts' agents to stop, then the learner host's (it saves last)."""
  order = [h for h in agents if h != learner_host] + [learner_host]
  for host in order:
    if agents[host].poll() is None:
      backend.interrupt(host, agents[host])
      try:
        agents[host].wait(timeout=grace_seconds)
      except subprocess.TimeoutExpired:
        agents[host].kill()


def run_agents(backend: Hosts, hosts: Sequence[str], plan_path: str, logdir: str,
               agent_flags: Sequence[str] = (), grace_seconds: float = 150.0) -> int:
  """Runs every host's agent until the program ends or a stop is asked for; the exit
  code (0 when every agent exited cleanly)."""
  agents = _start(backend, hosts, plan_path, logdir, agent_flags)
  try:
    if _wait(agents, hosts[0]):
      print('[cluster] stopping: actor hosts first, then the learner host', flush=True)
    _stop(backend, agents, hosts[0], grace_seconds)
  finally:
    for agent in agents.values():
      if agent.poll() is None:
        agent.kill()
  codes = {host: agent.wait() for host, agent in agents.items()}
  failed = {h: c for h, c in codes.items() if c != 0}
  if failed:
    print(f'[cluster] agents that failed: {failed} (logs in {logdir}/hosts/)', flush=True)
  return 1 if failed else 0
