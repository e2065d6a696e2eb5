"""The commands behind `launch.cluster`, as data: each step says what it does and is one
argv (gcloud, git or this project's own commands), so a dry run can print exactly what
a real run would execute.

Host names in the plan are `learner`, `cpu0`, `cpu1`, ...; their VMs are
`sg-<run_id>-learner`, `sg-<run_id>-cpu0`, ... Local files of a run (the code bundle,
the plan, the run secret) are kept in `.cluster/<run_id>/`.
"""

import dataclasses
import os
import subprocess
import sys
from typing import Dict, List, Optional, Sequence

REMOTE_DIR = 'seed_graph'  # On every host, in the login user's home.
PYTHON = '.venv/bin/python'  # This checkout's environment (scripts/setup_env.sh).


@dataclasses.dataclass(frozen=True)
class Cluster:
  project: str
  zone: str
  run_id: str
  actor_hosts: int
  actor_machine_type: str
  learner_accelerator: str
  tpu_version: str
  spot: bool
  base_port: int

  @property
  def tag(self) -> str:
    return f'sg-{self.run_id}'

  @property
  def hosts(self) -> List[str]:
    return ['learner'] + [f'cpu{i}' for i in range(self.actor_hosts)]

  def vm(self, host: str) -> str:
    return f'{self.tag}-{host}'

  @property
  def local_dir(self) -> str:
    return f'.cluster/{self.run_id}'

  def where(self) -> List[str]:
    return [f'--project={self.project}', f'--zone={self.zone}']


@dataclasses.dataclass(frozen=True)
class Step:
  what: str
  argv: List[str]  # May hold `{host}` fields: the addresses read by earlier steps.
  reads_address_of: Optional[str] = None  # Its output is this host's address.
  stdout_to: Optional[str] = None  # A local file for its output (mode 600).
  uses_addresses: bool = False  # Fill `{host}` fields of argv with the addresses read.


def _gcloud_host(cluster: Cluster, host: str, verb: str) -> List[str]:
  group = ['compute', 'tpus', 'tpu-vm'] if host == 'learner' else ['compute']
  return ['gcloud', *group, verb]


def _ssh(cluster: Cluster, host: str, command: str, what: str) -> Step:
  return Step(what, _gcloud_host(cluster, host, 'ssh') + [
      cluster.vm(host), *cluster.where(), f'--command={command}'])


def _plan_placeholders(cluster: Cluster) -> Dict[str, str]:
  return {host: f'<address of {cluster.vm(host)}>' for host in cluster.hosts}


def _plan(cluster: Cluster, config_path: str, overrides: Sequence[str], logdir: str,
          addresses: Dict[str, str], program: str = ''):
  from seed_graph.launch import placement  # pylint: disable=g-import-not-at-top
  config, built = placement.load_program(config_path, overrides, logdir, program)
  return placement.make_plan(
      built, config, config_path, overrides, ('learner', addresses['learner']),
      [(host, addresses[host]) for host in cluster.hosts[1:]], cluster.base_port, program)


def describe_plan(cluster: Cluster, config_path: str, overrides: Sequence[str],
                  logdir: str, program: str = '') -> str:
  plan = _plan(cluster, config_path, overrides, logdir, _plan_placeholders(cluster),
               program)
  lines = [f'# placement plan (fingerprint {plan.fingerprint})']
  for host in plan.hosts:
    lines.append(f'#   {cluster.vm(host)}: {plan.host_nodes(host)}')
  return '\n'.join(lines)


def _machines(cluster: Cluster, ports: str) -> List[Step]:
  spot_tpu = ['--spot'] if cluster.spot else []
  spot_vm = (['--provisioning-model=SPOT', '--instance-termination-action=STOP']
             if cluster.spot else [])
  labels = f'--labels=seed-graph-run={cluster.run_id}'
  actors = [cluster.vm(h) for h in cluster.hosts[1:]]
  return [
      Step('a firewall rule: only the run\'s own instances, only the plan\'s ports',
           ['gcloud', 'compute', 'firewall-rules', 'create', cluster.tag,
            f'--project={cluster.project}', '--network=default', '--direction=INGRESS',
            '--action=allow', f'--rules=tcp:{ports}', f'--source-tags={cluster.tag}',
            f'--target-tags={cluster.tag}']),
      Step('the learner TPU VM', ['gcloud', 'compute', 'tpus', 'tpu-vm', 'create',
                                  cluster.vm('learner'), *cluster.where(),
                                  f'--accelerator-type={cluster.learner_accelerator}',
                                  f'--version={cluster.tpu_version}',
                                  f'--tags={cluster.tag}', labels, *spot_tpu]),
      Step('the actor VMs', ['gcloud', 'compute', 'instances', 'create', *actors,
                             *cluster.where(), f'--machine-type={cluster.actor_machine_type}',
                             '--image-family=debian-12', '--image-project=debian-cloud',
                             f'--tags={cluster.tag}', labels, *spot_vm]),
      Step('the learner\'s internal address',
           ['gcloud', 'compute', 'tpus', 'tpu-vm', 'describe', cluster.vm('learner'),
            *cluster.where(), '--format=value(networkEndpoints[0].ipAddress)'],
           reads_address_of='learner'),
  ] + [Step(f'{cluster.vm(h)}\'s internal address',
            ['gcloud', 'compute', 'instances', 'describe', cluster.vm(h), *cluster.where(),
             '--format=value(networkInterfaces[0].networkIP)'], reads_address_of=h)
       for h in cluster.hosts[1:]]


def _host_python(host: str) -> str:
  """The learner's TPU VM runs the runtime's Python 3.8 (setup_host.sh --tpu_vm)."""
  return '.venv38/bin/python' if host == 'learner' else PYTHON


def start_agent_steps(cluster: Cluster, hosts: Sequence[str]) -> List[Step]:
  command = (f'cd {REMOTE_DIR} && SEED_GRAPH_RUN_SECRET=$(cat run_secret) nohup '
             '{python} -m seed_graph.launch.host --plan=plan.json --host={host} '
             '>> agent.log 2>&1 < /dev/null &')
  return [_ssh(cluster, host, command.replace('{python}', _host_python(host)).replace(
      '{host}', host), f'start {host}\'s agent') for host in hosts]


def up_steps(cluster: Cluster, config_path: str, overrides: Sequence[str],
             logdir: str, program: str = '') -> List[Step]:
  plan = _plan(cluster, config_path, overrides, logdir, _plan_placeholders(cluster),
               program)
  ports = sorted(port for node_ports in plan.ports.values() for port in node_ports)
  local = cluster.local_dir
  bundle, files = f'{local}/{REMOTE_DIR}.tar.gz', [f'{local}/plan.json', f'{local}/run_secret']
  steps = [
      Step('a folder for the run\'s local files', ['mkdir', '-p', local]),
      Step('the code bundle (the checked-out commit)',
           ['git', 'archive', '--format=tar.gz', f'--prefix={REMOTE_DIR}/', '-o', bundle,
            'HEAD']),
      Step(f'a fresh run secret, into {files[1]} (mode 600): the inference edge serves '
           'only streams that carry it',
           [PYTHON, '-c', 'import secrets; print(secrets.token_urlsafe(24))'],
           stdout_to=files[1]),
  ] + _machines(cluster, f'{ports[0]}-{ports[-1]}') + [
      Step('the placement plan, with the addresses just read',
           [PYTHON, '-m', 'seed_graph.launch.placement', f'--config={config_path}',
            f'--logdir={logdir}', '--learner_host=learner={learner}',
            '--actor_hosts=' + ','.join(f'{h}={{{h}}}' for h in cluster.hosts[1:]),
            f'--base_port={cluster.base_port}', f'--output={files[0]}',
            *([f'--program={program}'] if program else []),
            *[f'--config.{o}' for o in overrides]], uses_addresses=True)]
  for host in cluster.hosts:
    steps.append(Step(f'copy the bundle, plan and secret to {host}',
                      _gcloud_host(cluster, host, 'scp') + [
                          bundle, *files, f'{cluster.vm(host)}:', *cluster.where()]))
    steps.append(_ssh(cluster, host, f'tar -xzf {REMOTE_DIR}.tar.gz && mv plan.json '
                      f'run_secret {REMOTE_DIR}/ && chmod 600 {REMOTE_DIR}/run_secret && '
                      f'bash {REMOTE_DIR}/seed_graph/launch/cloud/setup_host.sh'
                      + (' --tpu_vm' if host == 'learner' else ''), f'set {host} up'))
  return steps + start_agent_steps(cluster, cluster.hosts) + [
      _ssh(cluster, 'learner', f'tail -F {REMOTE_DIR}/agent.log',
           'follow the learner host (Ctrl-C stops following, not the run)')]


def status_steps(cluster: Cluster) -> List[Step]:
  label = f'--filter=labels.seed-graph-run={cluster.run_id}'
  return [Step('the actor VMs', ['gcloud', 'compute', 'instances', 'list',
                                 f'--project={cluster.project}', label]),
          Step('the learner TPU VM', ['gcloud', 'compute', 'tpus', 'tpu-vm', 'list',
                                      *cluster.where(), label]),
          _ssh(cluster, 'learner', f'tail -n 3 {REMOTE_DIR}/agent.log', 'the status line')]


def logs_steps(cluster: Cluster) -> List[Step]:
  return [_ssh(cluster, host, f'tail -n 100 {REMOTE_DIR}/agent.log', f'{host}\'s agent')
          for host in cluster.hosts]


def stop_steps(cluster: Cluster) -> List[Step]:
  # Actor hosts first, as the local supervisor stops actors before the learner.
  return [_ssh(cluster, host, 'pkill -INT -f launch.host || true', f'stop {host}')
          for host in cluster.hosts[1:] + ['learner']]


def down_steps(cluster: Cluster) -> List[Step]:
  return [
      Step('delete the actor VMs', ['gcloud', 'compute', 'instances', 'delete',
                                    *[cluster.vm(h) for h in cluster.hosts[1:]],
                                    *cluster.where(), '--quiet']),
      Step('delete the learner TPU VM', ['gcloud', 'compute', 'tpus', 'tpu-vm', 'delete',
                                         cluster.vm('learner'), *cluster.where(), '--quiet']),
      Step('delete the firewall rule', ['gcloud', 'compute', 'firewall-rules', 'delete',
                                        cluster.tag, f'--project={cluster.project}',
                                        '--quiet'])]


def run(steps: Sequence[Step]) -> int:
  """Runs the steps in order, stopping at the first failure; the exit code."""
  addresses = {}
  for number, step in enumerate(steps, 1):
    argv = ([arg.format_map(addresses) for arg in step.argv] if step.uses_addresses
            else step.argv)
    print(f'# {number}. {step.what}', flush=True)
    capture = step.reads_address_of or step.stdout_to
    result = subprocess.run(argv, stdout=subprocess.PIPE if capture else None, text=True,
                            check=False)
    if result.returncode:
      print(f'error: step {number} failed (exit code {result.returncode}): '
            f'{step.what}', file=sys.stderr, flush=True)
      return 1
    if step.reads_address_of:
      addresses[step.reads_address_of] = result.stdout.strip()
    if step.stdout_to:
      with open(os.open(step.stdout_to, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
                'w') as f:
        f.write(result.stdout)
  return 0
