"""A program across hosts: Linux network namespaces as hosts (root), a plan from
`launch.placement`, one `launch.host` agent per host. Every namespace and process the
test makes is removed, also when it fails."""

import os
import re
import secrets
import signal
import subprocess
import sys
import time
import uuid

import pytest

from seed_graph.launch.network import netns_hosts
from seed_graph.launch import orphan
from seed_graph.launch import placement
from seed_graph.inference import transport
from tests import helpers
from tests import open_ports

HOSTS = ['learner', 'cpu0', 'cpu1']


def _make_plan(tmp_path, network, *overrides, config='cartpole_vtrace'):
  path = str(tmp_path / 'plan.json')
  result = subprocess.run(
      [sys.executable, '-m', 'seed_graph.launch.placement', f'--config={config}',
       f'--logdir={tmp_path / "run"}', f'--learner_host=learner={network.addresses["learner"]}',
       f'--actor_hosts=cpu0={network.addresses["cpu0"]},cpu1={network.addresses["cpu1"]}',
       f'--output={path}', *overrides], cwd=helpers.REPO, capture_output=True, text=True,
      timeout=120)
  assert result.returncode == 0, result.stderr[-2000:]
  return placement.Plan.load(path)


def _start_agent(tmp_path, network, host, secret, marker='', orphan_timeout=60):
  output = open(tmp_path / f'{host}.out', 'a')
  return network.run(
      host, [sys.executable, '-m', 'seed_graph.launch.host', f'--plan={tmp_path / "plan.json"}',
             f'--host={host}', f'--orphan_timeout_seconds={orphan_timeout}'],
      cwd=helpers.REPO, stdout=output, stderr=subprocess.STDOUT, text=True,
      env=dict(os.environ, SEED_GRAPH_RUN_SECRET=secret,
               **{helpers.MARKER_VARIABLE: marker}))


def _start_agents(tmp_path, network, secret, marker='', orphan_timeout=60):
  return {host: _start_agent(tmp_path, network, host, secret, marker, orphan_timeout)
          for host in HOSTS}


def _frames(tmp_path) -> int:
  metrics = helpers.read_metrics(tmp_path / 'run')
  return metrics[-1]['frames'] if metrics else 0


def _stop_all(tmp_path, network, agents):
  for agent in agents.values():
    if agent.poll() is None:
      agent.send_signal(signal.SIGINT)
  for host, agent in agents.items():
    agent.wait(timeout=150)
    assert agent.returncode == 0, (host, _outputs(tmp_path))
  for host in HOSTS:
    assert not network.pids(host), (host, _outputs(tmp_path))


def _outputs(tmp_path):
  return '\n'.join(f'--- {h}\n' + (tmp_path / f'{h}.out').read_text()[-2500:]
                   for h in HOSTS)


def _node_log(tmp_path, group: str) -> str:
  logs = tmp_path / 'run' / 'logs'
  return ''.join(path.read_text() for path in logs.glob(f'{group}*.log')) if logs.is_dir() else ''


def _connects(network, host: str, address: str, port: int) -> int:
  """connect()'s error number (0: connected) to `address:port` from `host`."""
  probe = network.run(host, [sys.executable, '-c', 'import socket, sys; s = socket.socket(); '
                             's.settimeout(5); print(s.connect_ex((sys.argv[1], '
                             'int(sys.argv[2]))))', address, str(port)],
                      stdout=subprocess.PIPE, text=True)
  return int(probe.communicate(timeout=60)[0])


def _namespaces():
  listing = subprocess.run(['ip', 'netns', 'list'], capture_output=True, text=True).stdout
  return {line.split()[0] for line in listing.splitlines() if line.strip()}


@pytest.mark.skipif(os.geteuid() != 0, reason='network namespaces need root')
def test_cluster_up_runs_a_population_on_three_namespace_hosts_and_leaves_nothing(tmp_path):
  """The launcher's own netns backend (plan, secret, one agent per namespace host) with a
  program of one's own: examples/population.py, two learners whose actors are spread
  over the actor hosts, the learners and the controller on the learner host."""
  marker, before = uuid.uuid4().hex, _namespaces()
  logdir = tmp_path / 'run'
  try:
    result = subprocess.run(
        [sys.executable, '-m', 'seed_graph.launch.cluster', 'up', '--backend=netns', '--hosts=3',
         '--config=cartpole_vtrace', f'--logdir={logdir}',
         '--program=examples.population:make_program',
         '--config.population.interval_seconds=5', '--config.population.ready_frames=2000',
         '--config.total_environment_frames=40000', '--config.logging.interval_seconds=1'],
        cwd=helpers.REPO, capture_output=True, text=True, timeout=400,
        env=dict(os.environ, **{helpers.MARKER_VARIABLE: marker}))
    actor_hosts = ''.join((logdir / 'hosts' / f'{h}.log').read_text() for h in HOSTS[1:])
    assert result.returncode == 0, (result.stdout[-3000:], result.stderr[-3000:], actor_hosts)
    plan = placement.Plan.load(str(logdir / 'hosts' / 'plan.json'))
    assert plan.program == 'examples.population:make_program'
    assert plan.nodes == {'learner/0': 'learner', 'learner/1': 'learner',
                          'evaluator/0': 'learner', 'evaluator/1': 'learner',
                          'controller/0': 'learner', 'actor/0': 'cpu0', 'actor/1': 'cpu1',
                          'actor/2': 'cpu0', 'actor/3': 'cpu1'}
    members = [helpers.read_metrics(logdir / f'member_{k}') for k in range(2)]
    assert max(m[-1]['frames'] for m in members) >= 40_000
    # Both actor hosts' environments reached each learner (2 x 16, and 2 evaluation).
    assert all(max(m['environments_seen'] for m in member) == 34 for member in members)
    assert (logdir / 'population.jsonl').exists()  # The controller copied a member.
    assert actor_hosts.count('the learner reached total_environment_frames') == 2
    assert _namespaces() == before  # Every namespace it made is gone...
    assert not helpers.marked_processes(marker)  # ...and every process.
  finally:
    for process in helpers.marked_processes(marker):
      process.kill()


def _kill_an_actor_and_see_the_learner_count_it(tmp_path, marker):
  # An actor killed on an actor host is restarted by that host's agent, and the count
  # reaches the learner's metrics (these hosts share the logdir, as a bucket would).
  helpers.node_processes(marker)['actor/0'].kill()
  assert helpers.wait_for(
      lambda: helpers.read_metrics(tmp_path / 'run')[-1].get('restarts_actor') == 1,
      60), _outputs(tmp_path)
  assert list((tmp_path / 'run').glob('restarts-cpu*.json'))


@pytest.mark.skipif(os.geteuid() != 0, reason='network namespaces need root')
def test_a_cut_actor_host_and_a_killed_learner_host_do_not_stop_training(tmp_path):
  marker = uuid.uuid4().hex
  with netns_hosts.HostNetwork(HOSTS) as network:
    plan = _make_plan(tmp_path, network, '--config.total_environment_frames=100000000',
                      '--config.logging.interval_seconds=1',
                      '--config.logging.checkpoint_interval_seconds=5')
    secret = secrets.token_urlsafe(24)
    agents = _start_agents(tmp_path, network, secret, marker)
    try:
      assert helpers.wait_for(lambda: _frames(tmp_path) > 10_000, 180), _outputs(tmp_path)
      # The inference server listens on the learner host's own address only.
      courier_port, inference_port = plan.ports['learner/0']
      listening = subprocess.run(['ip', 'netns', 'exec', network.namespaces['learner'], 'ss',
                                  '-ltnH'], capture_output=True, text=True).stdout
      # (gRPC binds it as an IPv4-mapped IPv6 address: [::ffff:10.200.0.1].)
      assert re.search(rf'10\.200\.0\.1\]?:{inference_port} ', listening), listening
      assert f':{courier_port} ' in listening  # Courier: every interface, its own choice.
      streams = lambda: helpers.read_metrics(tmp_path / 'run')[-1]['inference_streams']
      assert streams() == 3  # Two actors and the evaluator, one stream each.
      # One actor host vanishes (its link goes down; no connection is closed): the
      # learner frees its stream within the keepalive bound (twice 10 s, and a metrics
      # line), and trains on.
      network.cut('cpu1')
      cut_at, frames_at_cut = time.time(), _frames(tmp_path)
      assert helpers.wait_for(lambda: streams() == 2, 40), _outputs(tmp_path)
      assert time.time() - cut_at < 2 * transport.KEEPALIVE_SECONDS + 5
      assert helpers.wait_for(lambda: _frames(tmp_path) > frames_at_cut + 20_000, 120), \
          _outputs(tmp_path)
      actor = helpers.node_processes(marker)['actor/1']
      cpu_while_cut = sum(actor.cpu_times()[:2])
      network.restore('cpu1')
      # Its actor notices the dead connection (keepalive), reconnects, and steps again.
      assert helpers.wait_for(lambda: sum(actor.cpu_times()[:2]) > cpu_while_cut + 2.0,
                              90), _outputs(tmp_path)
      assert actor.is_running()  # The same process: it was never restarted.

      _kill_an_actor_and_see_the_learner_count_it(tmp_path, marker)

      # The learner host's agent is killed outright: its learner saves and stops;
      # started again, it resumes from that checkpoint while the actors wait for it.
      assert helpers.wait_for(lambda: helpers.latest_checkpoint(tmp_path / 'run'), 60)
      learner = helpers.node_processes(marker)['learner/0']
      agents['learner'].send_signal(signal.SIGKILL)
      agents['learner'].wait(10)
      learner.wait(150)
      steps_before = helpers.read_metrics(tmp_path / 'run')[-1]['learner_steps']
      lines_before = len(helpers.read_metrics(tmp_path / 'run'))
      agents['learner'] = _start_agent(tmp_path, network, 'learner', secret, marker)

      def resumed():
        after = helpers.read_metrics(tmp_path / 'run')[lines_before:]
        return after and after[-1]['learner_steps'] > steps_before
      assert helpers.wait_for(resumed, 180), _outputs(tmp_path)
      first = helpers.read_metrics(tmp_path / 'run')[lines_before]
      assert first['learner_steps'] > 0  # From the checkpoint, not from zero.
      _stop_all(tmp_path, network, agents)
    finally:
      for process in helpers.marked_processes(marker):
        process.kill()


@pytest.mark.skipif(os.geteuid() != 0, reason='network namespaces need root')
def test_actor_hosts_stop_by_themselves_once_the_learner_host_is_gone(tmp_path):
  with netns_hosts.HostNetwork(HOSTS) as network:
    _make_plan(tmp_path, network, '--config.total_environment_frames=100000000',
               '--config.logging.interval_seconds=1')
    agents = _start_agents(tmp_path, network, secrets.token_urlsafe(24), orphan_timeout=15)
    assert helpers.wait_for(lambda: _frames(tmp_path) > 5_000, 180), _outputs(tmp_path)
    # Both actor hosts' status lines (every 10 s) have heard the learner.
    assert helpers.wait_for(lambda: all(' frames (' in (tmp_path / f'{h}.out').read_text()
                                        for h in ('cpu0', 'cpu1')), 30), _outputs(tmp_path)
    network.cut('learner')  # The learner's host vanishes for everyone else.
    cut_at = time.time()
    for host in ('cpu0', 'cpu1'):
      assert helpers.wait_for(lambda: agents[host].poll() is not None, 90), (
          host, _outputs(tmp_path))
      # Its exit code says why: the learner was gone (not the end of the run).
      assert agents[host].returncode == orphan.ORPHANED_EXIT_CODE, (host, _outputs(tmp_path))
      assert not network.pids(host)
      assert 'the learner has not answered for 15 s' in (tmp_path / f'{host}.out').read_text()
    # The timeout, plus the stop of its nodes; not the minutes of a default timeout.
    assert time.time() - cut_at < 60
    agents['learner'].send_signal(signal.SIGINT)
    agents['learner'].wait(timeout=150)
    assert agents['learner'].returncode == 0 and not network.pids('learner')


def test_an_agent_refuses_a_plan_its_program_does_not_match(tmp_path):
  plan = placement.Plan(config_path='cartpole_vtrace', overrides=[],
                        logdir=str(tmp_path / 'run'), hosts={'a': '10.0.0.1', 'b': '10.0.0.2'},
                        nodes={'learner/0': 'a', 'actor/0': 'b'},
                        ports={'learner/0': [20000, 20001], 'actor/0': []},
                        fingerprint='0123456789abcdef')
  plan.save(str(tmp_path / 'plan.json'))
  result = subprocess.run(
      [sys.executable, '-m', 'seed_graph.launch.host', f'--plan={tmp_path / "plan.json"}',
       '--host=b'],
      cwd=helpers.REPO, capture_output=True, text=True, timeout=120,
      env=dict(os.environ, SEED_GRAPH_RUN_SECRET='s'))
  assert result.returncode == 2
  assert result.stderr.strip().splitlines()[-1].startswith(
      'error: this host builds another program than the plan')


@pytest.mark.skipif(os.geteuid() != 0, reason='network namespaces need root')
def test_r2d2_trains_across_hosts_with_the_replay_beside_the_learner(tmp_path):
  with netns_hosts.HostNetwork(HOSTS) as network:
    plan = _make_plan(tmp_path, network, '--config.total_environment_frames=15000',
                      *helpers.SMALL_R2D2_FLAGS,
                      config='cartpole_r2d2')
    assert plan.nodes['replay/0'] == 'learner'
    agents = _start_agents(tmp_path, network, secrets.token_urlsafe(24))
    deadline = time.time() + 300
    # Reverb checks no secret, so the replay answers the learner on a Unix socket, from a
    # network namespace of its own: its plan port is closed, on every host.
    assert helpers.wait_for(lambda: 'replay reached through' in _node_log(tmp_path, 'replay'),
                            120), _outputs(tmp_path)
    for host in HOSTS:
      assert _connects(network, host, network.addresses['learner'],
                       plan.ports['replay/0'][0]) != 0, host
    # Every port the program opens on any host, called from an actor host without the
    # secret: the inference edge refuses the caller; the control edge knows no such method.
    assert helpers.wait_for(lambda: len(open_ports.listening(network, 'learner')) >= 2, 120), (
        _outputs(tmp_path))
    listening = {host: open_ports.listening(network, host) for host in HOSTS}
    assert not listening['cpu0'] and not listening['cpu1'], listening
    answers = open_ports.statuses_without_secret(network, 'cpu0', network.addresses['learner'],
                                                 listening['learner'])
    assert sorted(answers.values()) == ['UNAUTHENTICATED', 'UNIMPLEMENTED'], (answers,
                                                                               listening)
    for host, agent in agents.items():
      agent.wait(timeout=max(1, deadline - time.time()))
      assert agent.returncode == 0, (host, _outputs(tmp_path))
    final = helpers.read_metrics(tmp_path / 'run')[-1]
    assert final['frames'] >= 15_000 and final['learner_steps'] > 0, _outputs(tmp_path)
    assert final['replay_size'] > 0 and final['environments_seen'] == 2 * 4 + 2
    for host in HOSTS:
      assert not network.pids(host), host
