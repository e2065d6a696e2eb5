"""`launch.cluster up --backend=ssh --ssh_hosts=LEARNER,ACTOR1,...`: a program on machines
with no scheduler, reached with OpenSSH (your own keys and `~/.ssh/config`, or
`--ssh_config`), in the foreground until the program ends or Ctrl-C.

Each host needs the checkout and its `.venv` at `--remote_dir` (default: this checkout's
path). A host is `NAME` or `NAME=ADDRESS`: ssh reaches NAME (an alias of your ssh config
will do), the other hosts reach it at ADDRESS (default NAME), which is what the plan
holds. The plan is copied to the same path on every host; the run's secret reaches each
agent on its ssh connection's stdin, never on a command line or in a file. An ordered
stop sends each agent its Ctrl-C (`pkill -INT` over ssh, matching that agent's command
line only), actor hosts first. A host lost mid-run (its ssh connection silent for ~30 s:
`SSH_OPTIONS`) is reported as an agent that failed, with exit code 255; training goes on
without its actors. Everything else is `seed_graph.launch.host_agents`.
"""

import os
import re
import shlex
import subprocess
from typing import Dict, List, Optional, Sequence, TextIO, Tuple

from seed_graph.inference import transport
from seed_graph.launch import host_agents
from seed_graph.launch import placement

REMOTE_PYTHON = '.venv/bin/python'  # Relative to --remote_dir.
# On every ssh command (they override the user's ssh config). A host that vanishes (power,
# network) closes no connection: without keepalives, its agent's ssh client would wait
# forever and a command to it until TCP gives up (minutes). With these, the agent's
# client exits (255) within ~30 s, which the launcher reports, training going on.
SSH_OPTIONS = ('-o', 'BatchMode=yes', '-o', 'ConnectTimeout=20', '-o', 'ServerAliveInterval=10',
               '-o', 'ServerAliveCountMax=3')


def parse_hosts(text: str) -> List[Tuple[str, str]]:
  """'a,b=10.0.0.2' -> [('a', 'a'), ('b', '10.0.0.2')]; PlanError for a bad list."""
  hosts = []
  for item in filter(None, (part.strip() for part in text.split(','))):
    name, _, address = item.partition('=')
    if not name or not re.fullmatch(r'[\w.@-]+', name):
      raise placement.PlanError(f'{item!r} in --ssh_hosts is not NAME or NAME=ADDRESS')
    hosts.append((name, address or name))
  if len(hosts) < 2:
    raise placement.PlanError('--ssh_hosts needs the learner\'s host and at least one '
                              'actor host, comma-separated')
  return hosts


class SshHosts:
  """`host_agents.Hosts` over OpenSSH."""

  def __init__(self, ssh: Sequence[str], remote_dir: str, plan_path: str):
    self._ssh, self._remote_dir, self._plan_path = list(ssh), remote_dir, plan_path

  def command(self, host: str, remote: str) -> List[str]:
    return self._ssh + list(SSH_OPTIONS) + [host, remote]

  def copy_plan(self, host: str):
    directory = os.path.dirname(self._plan_path)
    with open(self._plan_path, 'rb') as plan:
      subprocess.run(self.command(host, f'mkdir -p {shlex.quote(directory)} && cat > '
                                        f'{shlex.quote(self._plan_path)}'),
                     stdin=plan, check=True, capture_output=True, timeout=60)

  def start(self, host: str, argv: List[str], env: Dict[str, str],
            output: Optional[TextIO]) -> subprocess.Popen:
    variable = transport.RUN_SECRET_VARIABLE
    remote = (f'cd {shlex.quote(self._remote_dir)} && IFS= read -r {variable} && export '
              f'{variable} && exec {REMOTE_PYTHON} {shlex.join(argv[1:])}')
    agent = subprocess.Popen(self.command(host, remote), stdin=subprocess.PIPE,
                             stdout=output, stderr=subprocess.STDOUT if output else None,
                             start_new_session=True, text=True)
    agent.stdin.write(env[variable] + '\n')
    agent.stdin.close()
    return agent

  def interrupt(self, host: str, agent: subprocess.Popen) -> None:
    # Anchored at the agent's interpreter: the ssh client that started it (whose command
    # line holds the same words) may run on that very host.
    pattern = (f'^{re.escape(REMOTE_PYTHON)} -m seed_graph[.]launch[.]host '
               f'--plan={re.escape(self._plan_path)} --host={re.escape(host)}( |$)')
    try:
      result = subprocess.run(
          self.command(host, f'pkill -INT -f -- {shlex.quote(pattern)}'),
          capture_output=True, check=False, timeout=60)
      reached = result.returncode in (0, 1)  # 1: no such process (it ended meanwhile).
    except subprocess.TimeoutExpired:
      reached = False
    if not reached:
      agent.kill()  # The host cannot be reached: nothing there to stop in order.


def up(hosts: Sequence[Tuple[str, str]], config_path: str, overrides: Sequence[str],
       logdir: str, base_port: int, ssh: Sequence[str] = ('ssh',), remote_dir: str = '',
       program_spec: str = '') -> int:
  """Runs the program on `hosts` ((name, address), the learner's first) until it ends;
  the exit code (0 when every agent exited cleanly)."""
  logdir = os.path.abspath(logdir)
  plan_path = host_agents.write_plan(list(hosts), config_path, overrides, logdir,
                                     base_port, program_spec)
  backend = SshHosts(ssh, remote_dir or os.getcwd(), plan_path)
  for name, _ in hosts:
    try:
      backend.copy_plan(name)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as error:
      stderr = (getattr(error, 'stderr', b'') or b'').decode(errors='replace').strip()
      raise placement.PlanError(f'could not copy the plan to {name} over ssh: '
                                f'{stderr or error}') from None
  return host_agents.run_agents(backend, [name for name, _ in hosts], plan_path, logdir)
