"""One endless small V-trace program (`python -m seed_graph.launch.local`, local_mp),
started once for this file and looked at by its tests in order, where each would
otherwise start a program of its own: who can reach its ports (a network namespace of its
own with loopback alone, and the run's secret on the inference edge), what its learner
and actors see of GPUs, its console, one program per logdir, killed actors coming back,
and last its launcher SIGKILLed: the nodes stop by themselves and save. Every process it
started is gone afterwards, also when a test fails. The tests depend on their order."""

import dataclasses
import json
import os
import pathlib
import re
import signal
import socket
import subprocess
import sys
import uuid

import psutil
import pytest

from seed_graph.launch.runs import cuda_libraries
from tests import helpers


@dataclasses.dataclass
class Running:
  launcher: subprocess.Popen
  logdir: pathlib.Path
  marker: str


def _frames(logdir) -> int:
  metrics = helpers.read_metrics(logdir)
  return metrics[-1]['frames'] if metrics else 0


@pytest.fixture(scope='module')
def program(tmp_path_factory):
  logdir = tmp_path_factory.mktemp('endless') / 'run'
  marker = uuid.uuid4().hex
  launcher = helpers.start_launch(logdir, marker, '--config.total_environment_frames=100000000',
                                  '--config.actors.env_groups=2', *helpers.SMALL_VTRACE_FLAGS)
  try:
    assert helpers.wait_for(lambda: _frames(logdir) > 2000, 180), (
        helpers.launch_output(logdir)[-4000:])
    yield Running(launcher, logdir, marker)
  finally:
    if launcher.poll() is None:
      launcher.kill()
      launcher.wait()
    for process in helpers.marked_processes(marker):
      process.kill()


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


def test_it_listens_only_in_its_own_loopback_network(program):
  nodes = helpers.node_processes(program.marker)
  learner = nodes['learner/0']
  processes = {program.launcher.pid} | {p.pid for p in nodes.values()}
  namespaces = {_namespace(pid) for pid in processes}
  assert len(namespaces) == 1 and _namespace(os.getpid()) not in namespaces
  with open(f'/proc/{learner.pid}/net/dev') as f:  # Its interfaces: loopback alone.
    assert [line.split(':')[0].strip() for line in f.readlines()[2:]] == ['lo']

  # Out here, nothing of the program listens; in there, the learner does (courier's
  # control edge and the inference edge).
  assert not _listening([], processes)
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


def test_its_learner_loads_the_cuda_libraries_and_its_actors_see_no_gpu(program):
  # scripts/setup_env.sh --gpu installed them (tests/integration/test_gpu_setup.py).
  folders = cuda_libraries.package_folders()
  assert folders, 'the CUDA libraries are not installed here: bash scripts/setup_env.sh --gpu'
  nodes = helpers.node_processes(program.marker)
  assert set(nodes) == {'learner/0', 'actor/0', 'actor/1', 'evaluator/0'}, nodes
  for name, process in nodes.items():
    environment = process.environ()
    if name == 'learner/0':
      assert environment['LD_LIBRARY_PATH'].startswith(os.pathsep.join(folders))
      assert 'CUDA_VISIBLE_DEVICES' not in environment
      with open(f'/proc/{process.pid}/maps') as maps:
        loaded = set(re.findall(r'\S+/libcudart\.so\.11\.0', maps.read()))
      assert loaded and all(os.path.dirname(p) in folders for p in loaded), loaded
    else:
      assert environment['CUDA_VISIBLE_DEVICES'] == '', (name, environment)


def _lock_holder(logdir) -> dict:
  with open(logdir / 'launcher.lock') as f:
    return json.load(f)


def test_its_console_shows_status_lines_and_a_second_launcher_is_refused(program):
  logdir = program.logdir
  # The console (a file here): status lines, not the nodes' informational output.
  assert helpers.wait_for(
      lambda: re.search(r'^\d:\d\d:\d\d \| [\d.]+k?/100M frames \(0%\) \| ',
                        helpers.launch_output(logdir), re.M), 30), \
      helpers.launch_output(logdir)
  assert 'control edge on port' not in helpers.launch_output(logdir)
  with open(logdir / 'logs' / 'learner_0.log') as f:
    # It is in the node's log.
    assert ('get_stats, get_hyperparameters, save, stop, get_weights, set_weights, '
            'set_hyperparameters (each needs the run secret)') in f.read()
  # One program per logdir: a second launcher is refused before it starts anything.
  second = helpers.run_launch(logdir, *helpers.SMALL_VTRACE_FLAGS, timeout=120)
  assert second.returncode == 2, second.stdout[-2000:] + second.stderr[-2000:]
  assert second.stderr.strip() == (
      f'error: --logdir={logdir}: in use by another launcher (pid {program.launcher.pid} '
      f'on {socket.gethostname()}, started {_lock_holder(logdir)["started"]}); stop it or '
      'use another --logdir')
  assert len(helpers.node_processes(program.marker)) == 4


def test_killed_actors_come_back_and_frames_keep_rising(program):
  logdir, marker = program.logdir, program.marker
  nodes = helpers.node_processes(marker)
  for process in nodes.values():  # The stop grace reaches every node process.
    assert '--lp_termination_notice_secs=120' in process.cmdline()
  for round_ in range(3):
    killed = {name: nodes[name].pid for name in ('actor/0', 'actor/1')}
    for name in killed:
      nodes[name].send_signal(signal.SIGKILL)  # Every actor at once: no frames without them.
    frames_at_kill = _frames(logdir)

    def replaced():
      now = helpers.node_processes(marker)
      return all(name in now and now[name].pid != pid for name, pid in killed.items())
    assert helpers.wait_for(replaced, 60), f'round {round_}: actors not restarted'
    assert helpers.wait_for(lambda: _frames(logdir) > frames_at_kill + 2000, 120), round_
    nodes = helpers.node_processes(marker)
  assert helpers.wait_for(
      lambda: helpers.read_metrics(logdir)[-1].get('restarts_actor') == 6, 30)
  assert ('actor/1 exited (killed by SIGKILL, from outside); restarting it in 1 s'
          in helpers.launch_output(logdir))
  assert nodes['learner/0'].is_running()  # Never touched.


def test_its_nodes_stop_and_save_when_the_launcher_is_killed(program):
  logdir = program.logdir
  nodes = helpers.node_processes(program.marker)
  assert len(nodes) == 4
  # Periodic checkpoints (every 120 s) are silent; the learner's save as it stops is not.
  assert '[learner] checkpoint ' not in helpers.node_logs(logdir, ['learner/0'])
  frames_at_kill = _frames(logdir)
  program.launcher.send_signal(signal.SIGKILL)  # No clean-up by the launcher at all.
  program.launcher.wait()
  _, alive = psutil.wait_procs(list(nodes.values()), timeout=120)
  assert not alive, helpers.node_logs(logdir, [n for n, p in nodes.items() if p in alive])
  assert not helpers.marked_processes(program.marker)
  # The learner stopped the normal way: it saved where it was, and said so in its log
  # (its output pipe to the launcher was closed).
  assert (logdir / 'checkpoints' / 'checkpoint').exists()
  saved = re.search(r'\[learner\] checkpoint \S+; frames=(\d+)',
                    helpers.node_logs(logdir, ['learner/0']))
  assert saved and int(saved.group(1)) >= frames_at_kill, saved
