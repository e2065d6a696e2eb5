"""Who can connect to a local program: its nodes share a network namespace of their own
with only loopback, so nothing outside can reach their ports, and inside it the
inference edge serves only streams that carry the run's secret. One real launch
(`python -m seed_graph.launch.local`, local_mp); every process it started is gone afterwards."""

import os
import signal
import subprocess
import sys
import uuid

from tests import helpers

def _namespace(pid) -> str:
  return os.readlink(f'/proc/{pid}/ns/net')


def _in_namespace_of(pid):
  """A command prefix that runs in the network namespace of process `pid`."""
  if os.geteuid() == 0:
    return ['nsenter', f'--net=/proc/{pid}/ns/net']
  # A user's own namespace is entered through the user namespace that owns it.
  return ['nsenter', '-t', str(pid), '--user', '--net', '--preserve-credentials']


def _listening(command_prefix, pids):
  """Listening TCP ports of `pids` as `ss` sees them in a namespace: {pid: {port}}."""
  lines = subprocess.run(command_prefix + ['ss', '-ltnpH'], capture_output=True,
                         text=True, check=True).stdout.splitlines()
  found = {}
  for line in lines:
    for pid in pids:
      if f'pid={pid},' in line:
        found.setdefault(pid, set()).add(int(line.split()[3].rsplit(':', 1)[1]))
  return found


def _probe(pid, ports, secret):
  output = subprocess.run(
      _in_namespace_of(pid) + [sys.executable, '-c', helpers.INFERENCE_PROBE, 'localhost',
                               secret or '', *map(str, ports)],
      capture_output=True, text=True, cwd=helpers.REPO, timeout=60, check=True).stdout
  return helpers.probe_statuses(output)


def test_a_local_program_listens_only_in_its_own_loopback_network(tmp_path):
  logdir = tmp_path / 'run'
  marker = uuid.uuid4().hex
  launcher = helpers.start_launch(logdir, marker, '--config.total_environment_frames=100000000',
                                  *helpers.SMALL_VTRACE_FLAGS)
  try:
    assert helpers.wait_for(lambda: helpers.read_metrics(logdir), 180), \
        helpers.launch_output(logdir)[-4000:]
    nodes = helpers.node_processes(marker)
    learner = nodes['learner/0']
    program = {launcher.pid} | {p.pid for p in nodes.values()}
    namespaces = {_namespace(pid) for pid in program}
    assert len(namespaces) == 1 and _namespace(os.getpid()) not in namespaces
    with open(f'/proc/{learner.pid}/net/dev') as f:  # Its interfaces: loopback alone.
      assert [line.split(':')[0].strip() for line in f.readlines()[2:]] == ['lo']

    # Out here, nothing of the program listens; in there, the learner does (courier's
    # control edge and the inference edge).
    assert not _listening([], program)
    ports = _listening(_in_namespace_of(learner.pid), [learner.pid])[learner.pid]
    assert len(ports) >= 2

    secret = learner.environ()['SEED_GRAPH_RUN_SECRET']
    assert len(secret) >= 24
    without = _probe(learner.pid, ports, None)
    wrong = _probe(learner.pid, ports, secret[::-1])
    right = _probe(learner.pid, ports, secret)
    inference = [port for port, code in without.items() if code == 'UNAUTHENTICATED']
    assert len(inference) == 1, without  # Courier's port does not know the method.
    assert wrong[inference[0]] == 'UNAUTHENTICATED'
    assert right[inference[0]] == 'INVALID_ARGUMENT'  # Let in, then refused as garbage.
    assert learner.is_running()
  finally:
    launcher.send_signal(signal.SIGINT)
    try:
      launcher.wait(timeout=150)
    finally:
      for process in helpers.marked_processes(marker):
        process.kill()
