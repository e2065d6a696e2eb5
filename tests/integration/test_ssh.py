"""`launch.cluster up --backend=ssh` against real OpenSSH servers
(tests/ssh_machines.py: one sshd per network-namespace machine; root). The launcher runs
on a login namespace, as a user's laptop or head node would."""

import os
import shutil
import signal
import subprocess
import sys

import pytest

from tests import helpers
from tests import open_ports
from tests import ssh_machines

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason='namespace machines need root'),
    pytest.mark.skipif(not os.path.exists('/usr/sbin/sshd'), reason=(
        'openssh-server is not installed: bash scripts/install_cluster_tools.sh')),
]


@pytest.fixture
def machines(tmp_path):
  with ssh_machines.SshMachines(str(tmp_path / 'ssh')) as running:
    yield running


def _processes_naming(text: str):
  found = []
  for pid in filter(str.isdigit, os.listdir('/proc')):
    try:
      with open(f'/proc/{pid}/cmdline', 'rb') as f:
        command = f.read().replace(b'\0', b' ').decode(errors='replace')
    except OSError:
      continue
    if text in command and int(pid) != os.getpid():
      found.append((int(pid), command))
  return found


def _zombie(pid: int) -> bool:
  try:
    with open(f'/proc/{pid}/stat') as f:
      return f.read().rsplit(')', 1)[1].split()[0] == 'Z'
  except OSError:
    return True


def _strangers_are_refused(machines) -> None:
  """Every port the program opens, called from the login machine without the secret: the
  inference edge refuses the caller; the control edge knows no such method. The actor
  machines open none."""
  learner, *actor_machines = machines.machines
  assert not any(open_ports.listening(machines.network, m, ['sshd']) for m in actor_machines)
  ports = open_ports.listening(machines.network, learner, ['sshd'])
  answers = open_ports.statuses_without_secret(machines.network, 'login',
                                               machines.network.addresses[learner], ports)
  assert sorted(answers.values()) == ['UNAUTHENTICATED', 'UNIMPLEMENTED'], (answers, ports)


def test_trains_over_ssh_goes_on_without_a_lost_host_and_stops_in_order(machines, tmp_path):
  logdir, output_path = tmp_path / 'run', tmp_path / 'launcher.out'
  hosts = ','.join(f'{m}={machines.network.addresses[m]}' for m in machines.machines)
  with open(output_path, 'w') as output:
    launcher = subprocess.Popen(
        machines.network.in_namespace('login') + [
            sys.executable, '-m', 'seed_graph.launch.cluster', 'up', '--backend=ssh',
            f'--ssh_hosts={hosts}', f'--ssh_config={machines.ssh_config}',
            '--config=cartpole_vtrace', f'--logdir={logdir}',
            '--config.total_environment_frames=1000000000',
            '--config.logging.interval_seconds=1'],
        cwd=helpers.REPO, stdout=output, stderr=subprocess.STDOUT)
  try:
    def frames():
      metrics = helpers.read_metrics(logdir)
      return metrics[-1]['frames'] if metrics else 0
    assert helpers.wait_for(lambda: frames() > 5_000, 240), (
        output_path.read_text()[-3000:], machines.logs())
    # Both actor hosts' environments reached the learner (16 each, and 2 evaluation).
    assert helpers.wait_for(
        lambda: helpers.read_metrics(logdir)[-1]['environments_seen'] == 34, 60), (
            helpers.read_metrics(logdir)[-1], output_path.read_text()[-3000:])
    _strangers_are_refused(machines)
    agents = _processes_naming(f'--plan={logdir}/hosts/plan.json')
    assert len([c for _, c in agents if c.startswith('.venv/bin/python')]) == 3, agents
    assert not _processes_naming('SEED_GRAPH_RUN_SECRET=')  # On no command line.
    # An actor host vanishes (its link goes down; no connection is closed): its agent's
    # ssh client gives up on the silent connection (ssh_cluster.SSH_OPTIONS: ~30 s), and
    # the learner trains on with the other host's actors.
    lost = machines.machines[2]
    client = next(pid for pid, command in _processes_naming(f'--host={lost}')
                  if command.startswith('ssh '))
    machines.network.cut(lost)
    frames_at_cut = frames()
    assert helpers.wait_for(lambda: not os.path.exists(f'/proc/{client}/cmdline') or
                            _zombie(client), 60), output_path.read_text()[-3000:]
    assert helpers.wait_for(lambda: frames() > frames_at_cut + 5_000, 60), (
        output_path.read_text()[-3000:])
    launcher.send_signal(signal.SIGINT)
    assert launcher.wait(timeout=200) == 1, output_path.read_text()[-3000:]
  finally:
    if launcher.poll() is None:
      launcher.kill()
  text = output_path.read_text()
  assert 'stopping: actor hosts first, then the learner host' in text, text[-3000:]
  assert '[launcher] stopping: Ctrl-C' in text, text[-3000:]  # The learner host's agent.
  assert f"agents that failed: {{'{lost}': 255}}" in text, text[-3000:]
  assert helpers.latest_checkpoint(logdir)
  # Every agent the launcher could reach ended (the lost host's stops by itself later).
  lost_pids = set(machines.network.pids(lost))
  assert not [p for p, _ in _processes_naming(f'--plan={logdir}/hosts/plan.json')
              if p not in lost_pids]
  for machine in machines.machines[1:]:
    assert 'host ' + machine in (logdir / 'hosts' / f'{machine}.log').read_text()


def test_a_bad_host_list_fails_in_one_line(tmp_path):
  result = subprocess.run(
      [sys.executable, '-m', 'seed_graph.launch.cluster', 'up', '--backend=ssh',
       '--ssh_hosts=onlyone', '--config=cartpole_vtrace', f'--logdir={tmp_path}'],
      cwd=helpers.REPO, capture_output=True, text=True, timeout=120)
  assert result.returncode == 2 and result.stderr.strip().splitlines() == [
      'error: --ssh_hosts needs the learner\'s host and at least one actor host, '
      'comma-separated'], result.stderr
  assert not shutil.os.path.exists(tmp_path / 'hosts')  # Nothing planned.
