"""A real Slurm cluster on network-namespace hosts of this machine (root), for the tests of
`launch.cluster --backend=slurm`: Debian's slurm-wlm and munge (scripts/install_cluster_tools.sh),
a login host (a namespace) with munged and slurmctld, one slurmd per compute node inside
a namespace of its own, and a slurm.conf made for this cluster alone, everything under
one directory. Two partitions on the same nodes: `main` (the default) and `urgent`, whose
jobs preempt `main`'s as Slurm does by default (PreemptMode=CANCEL, no GraceTime).

No cgroups (proctrack/linuxproc, task/none): the processes of a job are found by their
parent, so `kill_node` (every process in a node's namespace) is a node that died. Every
daemon and process is killed and every namespace deleted on exit, also after a failure.
"""

import os
import socket
import subprocess
import time
from typing import Dict, List, Sequence

from seed_graph.launch.network import netns_hosts

_CONF = """ClusterName=seedgraphtest
SlurmctldHost={controller}({controller_address})
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={dir}/munge.socket
CredType=cred/munge
StateSaveLocation={dir}/state
SlurmdSpoolDir={dir}/spool/%n
SlurmctldPidFile={dir}/slurmctld.pid
SlurmdPidFile={dir}/slurmd.%n.pid
SlurmctldLogFile={dir}/slurmctld.log
SlurmdLogFile={dir}/slurmd.%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
MailProg=/bin/true
SlurmdParameters=config_overrides
ReturnToService=2
SlurmdTimeout=20
KillWait=30
PreemptType=preempt/partition_prio
PreemptMode=CANCEL
{nodes}
PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP PriorityTier=1
PartitionName=urgent Nodes=ALL MaxTime=INFINITE State=UP PriorityTier=2
"""


class SlurmCluster:
  """See the module docstring. `run(argv)` runs a client command (sbatch, squeue, the
  launcher) on the login host, as a user would. Use as a context manager."""

  def __init__(self, directory: str, nodes: Sequence[str] = ('node0', 'node1', 'node2'),
               cpus_per_node: int = 8):
    self.directory, self.nodes = str(directory), list(nodes)
    self._cpus = cpus_per_node
    self._daemons: List[subprocess.Popen] = []
    self.network = netns_hosts.HostNetwork(['login'] + self.nodes)
    self.env: Dict[str, str] = dict(os.environ,
                                    SLURM_CONF=os.path.join(self.directory, 'slurm.conf'))
    try:
      self._write_files()
      self._start_daemons()
    except Exception:
      self.close()
      raise

  def _write_files(self):
    for folder in ['state'] + [f'spool/{h}' for h in self.nodes]:
      os.makedirs(os.path.join(self.directory, folder), exist_ok=True)
    key = os.path.join(self.directory, 'munge.key')
    with open(key, 'wb') as f:
      f.write(os.urandom(1024))
    os.chmod(key, 0o400)
    nodes = '\n'.join(f'NodeName={h} NodeAddr={self.network.addresses[h]} CPUs={self._cpus} '
                      'RealMemory=4000 State=UNKNOWN' for h in self.nodes)
    with open(self.env['SLURM_CONF'], 'w') as f:
      # slurmctld only runs on a host whose name is SlurmctldHost's: this machine's.
      f.write(_CONF.format(controller=socket.gethostname(), dir=self.directory,
                           controller_address=self.network.addresses['login'],
                           nodes=nodes))
    with open(os.path.join(self.directory, 'cgroup.conf'), 'w') as f:
      f.write('CgroupPlugin=cgroup/v1\n')  # autodetect fails where /sys/fs/cgroup is tmpfs.

  def _daemon(self, host: str, argv: List[str], log: str):
    output = open(os.path.join(self.directory, log), 'w')
    self._daemons.append(self.network.run(host, argv, env=self.env, stdout=output,
                                          stderr=subprocess.STDOUT))

  def _start_daemons(self):
    d = self.directory
    munged = ['munged', '--foreground', '--force', f'--key-file={d}/munge.key',
              f'--socket={d}/munge.socket', f'--pid-file={d}/munged.pid',
              f'--seed-file={d}/munge.seed', f'--log-file={d}/munged.log']
    self._daemon('login', munged, 'munged.out')
    self._daemon('login', ['slurmctld', '-D', '-i'], 'slurmctld.out')
    for host in self.nodes:
      self._daemon(host, ['slurmd', '-D', '-N', host], f'slurmd.{host}.out')
    self._wait_until_idle()

  def _wait_until_idle(self):
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
      listing = self.run(['sinfo', '--noheader', '--Node', '--format=%N %t']).stdout
      states = dict(line.split() for line in listing.splitlines())  # A line per partition.
      if sorted(states) == sorted(self.nodes) and set(states.values()) == {'idle'}:
        return
      time.sleep(0.5)
    raise RuntimeError(f'the test Slurm cluster did not come up: {self.logs()}')

  def run(self, argv: Sequence[str], timeout: float = 300,
          **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(self.network.in_namespace('login') + list(argv),
                          env=kwargs.pop('env', self.env), capture_output=True, text=True,
                          timeout=timeout, check=False, **kwargs)

  def kill_node(self, node: str):
    """The node dies: its slurmd, its job steps and every other process in it."""
    pids = [str(p) for p in self.network.pids(node)]
    if pids:
      subprocess.run(['kill', '-9', *pids], check=False, capture_output=True)

  def revive_node(self, node: str):
    """The node comes back: its slurmd starts again, and it is idle once more."""
    self._daemon(node, ['slurmd', '-D', '-N', node], f'slurmd.{node}.out')
    self._wait_until_idle()

  def logs(self, tail_chars: int = 2000) -> str:
    texts = []
    for name in sorted(os.listdir(self.directory)):
      if name.endswith(('.out', '.log')):
        with open(os.path.join(self.directory, name), errors='replace') as f:
          texts.append(f'--- {name}\n{f.read()[-tail_chars:]}')
    return '\n'.join(texts)

  def close(self):
    self.network.close()  # Kills every process in the namespaces: daemons and jobs.
    for daemon in self._daemons:
      if daemon.poll() is None:
        daemon.kill()
      daemon.wait()

  def __enter__(self) -> 'SlurmCluster':
    return self

  def __exit__(self, *exc):
    self.close()
