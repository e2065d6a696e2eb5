r"""The coordinator of a Slurm run: what the batch script of `launch.cluster up
--backend=slurm` executes, on the learner's node, inside the allocation.

  python -m seed_graph.launch.slurm.job --config=NAME_OR_FILE --logdir=DIR \
      [--base_port=20000] [--program=module:function] [--orphan_timeout_seconds=300] \
      [--config.KEY=VALUE ...]

The hosts are the nodes of the allocation (`scontrol show hostnames
"$SLURM_JOB_NODELIST"`): this node, where the batch script runs, for the learner, the
others for the actors, each at the address Slurm reaches it by (`NodeAddr` of `scontrol
show node`). Each host's agent runs as a job step of its own (`srun --nodes=1 --ntasks=1
--nodelist=HOST`, through `seed_graph.launch.slurm.step`), so Slurm accounts for,
signals and cleans up every process; an ordered stop signals the steps (`scancel
--signal=INT STEP`), actor hosts first.
Everything else is `seed_graph.launch.host_agents`.
"""

import os
import re
import signal
import subprocess
import sys
from typing import Dict, List, Optional, Sequence, TextIO, Tuple

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '2')

from absl import app  # pylint: disable=g-import-not-at-top
from absl import flags

from seed_graph.launch import host_agents
from seed_graph.launch import placement
from seed_graph.launch.runs import config_args

_CONFIG = flags.DEFINE_string('config', None, 'As launch.cluster\'s.')
_LOGDIR = flags.DEFINE_string('logdir', None, 'As launch.cluster\'s.')
_BASE_PORT = flags.DEFINE_integer('base_port', 20000, 'The plan\'s first port.')
_PROGRAM = flags.DEFINE_string('program', '', 'As launch.cluster\'s.')
_ORPHAN_TIMEOUT = flags.DEFINE_float('orphan_timeout_seconds', 300.0, 'As launch.cluster\'s.')
flags.mark_flags_as_required(['config', 'logdir'])
_OVERRIDES = []  # The `--config.KEY=VALUE` arguments, taken out before absl sees them.


def _slurm(*argv: str) -> str:
  return subprocess.run(argv, check=True, capture_output=True, text=True).stdout


def node_address(node: str) -> str:
  """The address Slurm reaches `node` by (its NodeAddr; the name when none is set)."""
  match = re.search(r'\bNodeAddr=(\S+)', _slurm('scontrol', 'show', 'node', '--oneliner',
                                                 node))
  return match.group(1) if match else node


def allocation_hosts() -> List[Tuple[str, str]]:
  """(node, address) of the allocation: this node, the learner's, first."""
  learner = os.environ['SLURMD_NODENAME']
  nodes = _slurm('scontrol', 'show', 'hostnames', os.environ['SLURM_JOB_NODELIST']).split()
  actors = [node for node in nodes if node != learner]
  return [(node, node_address(node)) for node in [learner] + actors]


def _down(node: str) -> bool:
  """Whether Slurm has set `node` DOWN (sinfo's `down` or `down*`). A node merely not
  responding for now (`alloc*`) may be a busy learner's host that would still save."""
  state = subprocess.run(['sinfo', '--noheader', '--Node', f'--nodes={node}', '--format=%t'],
                         capture_output=True, text=True, check=False).stdout
  return state.strip().startswith('down')


class SlurmSteps:
  """`host_agents.Hosts` as job steps of the allocation this process runs in."""

  def __init__(self):
    self._job = os.environ['SLURM_JOB_ID']

  def step_name(self, host: str) -> str:
    return f'seed_graph-{self._job}-{host}'

  def start(self, host: str, argv: List[str], env: Dict[str, str],
            output: Optional[TextIO]) -> subprocess.Popen:
    # --overlap: a step restarted on a node shares it with the one still ending.
    # --kill-on-bad-exit=0: an agent that fails leaves the other hosts' steps running.
    # seed_graph.launch.slurm.step: the job ends once its agent has stopped for want of a
    # learner whose node left the job.
    return subprocess.Popen(
        ['srun', '--nodes=1', '--ntasks=1', f'--nodelist={host}',
         '--overlap', '--kill-on-bad-exit=0', f'--job-name={self.step_name(host)}',
         sys.executable, '-m', 'seed_graph.launch.slurm.step', *argv],
        env=env, stdout=output, stderr=subprocess.STDOUT if output else None,
        start_new_session=True)

  def step_id(self, host: str) -> Optional[str]:
    """The id of the step running `host`'s agent (`JOB.STEP`), None if none runs."""
    listing = subprocess.run(['squeue', '--steps', '--noheader', '--format=%i %j'],
                             capture_output=True, text=True, check=False).stdout
    for line in listing.splitlines():
      step, _, name = line.strip().partition(' ')
      if name == self.step_name(host):
        return step
    return None

  def interrupt(self, host: str, agent: subprocess.Popen) -> None:
    # srun itself does not pass one SIGINT or SIGTERM on as such: it reports, or ends
    # the step with SIGKILL after Slurm's KillWait. scancel signals the agent only.
    step = self.step_id(host)
    if step is None or _down(host):
      # Nothing there to stop. Slurm goes on listing a failed node's step for a while
      # after it set the node DOWN, and a signal to it would leave this stop waiting
      # out its whole grace for the srun.
      print(f'[slurm] {host}: its node or job step has gone; ending its srun', flush=True)
      agent.send_signal(signal.SIGKILL)
      return
    # Inside a job, scancel also reports an error about the job itself (Slurm 22.05:
    # "Invalid job id specified") after signalling the step: its exit code says nothing.
    subprocess.run(['scancel', '--signal=INT', step], capture_output=True, check=False)


def main(argv: Sequence[str]):
  if len(argv) > 1:
    raise app.UsageError(f'unexpected arguments: {argv[1:]}')
  hosts = allocation_hosts()
  print('[slurm] hosts: ' + ', '.join(f'{n} {a}' for n, a in hosts), flush=True)
  try:
    plan_path = host_agents.write_plan(hosts, _CONFIG.value, _OVERRIDES, _LOGDIR.value,
                                       _BASE_PORT.value, _PROGRAM.value)
  except placement.PlanError as error:
    print(f'error: {error}', file=sys.stderr, flush=True)
    return 2
  return host_agents.run_agents(
      SlurmSteps(), [n for n, _ in hosts], plan_path, _LOGDIR.value,
      [f'--orphan_timeout_seconds={_ORPHAN_TIMEOUT.value:g}'])


if __name__ == '__main__':
  sys.exit(app.run(main, flags_parser=config_args.flags_parser(_OVERRIDES)))
