"""A replay reached only through a Unix socket (`seed_graph.nodes.replay_socket`): the
forwarder carries Reverb's calls both ways, the socket and its folder are the user's
alone, and a replay started under the namespace command has no port any network reaches."""

import os
import pathlib
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import textwrap

import numpy as np
import pytest
import reverb

from seed_graph.nodes import replay_socket
from tests import helpers


def _tables():
  return [reverb.Table.queue('queue', max_size=100)]


def _round_trip(address: str) -> None:
  """server_info, an insert and a sample through `address`."""
  client = reverb.Client(address)
  assert 'queue' in client.server_info(timeout=30)
  client.insert([np.arange(4, dtype=np.int32)], priorities={'queue': 1.0})
  (sample,) = list(client.sample('queue', num_samples=1))
  np.testing.assert_array_equal(sample[0].data[0], np.arange(4, dtype=np.int32))


@pytest.fixture
def short_tmp():
  """A folder with a short path: a Unix socket's path holds at most 107 bytes."""
  folder = tempfile.mkdtemp(prefix='sg', dir='/tmp')
  yield pathlib.Path(folder)
  shutil.rmtree(folder, ignore_errors=True)


def test_a_sockets_path_is_the_runs_and_short_enough(monkeypatch, short_tmp):
  monkeypatch.setattr(replay_socket.tempfile, 'gettempdir', lambda: str(short_tmp))
  name = f'seed_graph-{os.getuid()}/0123456789abcdef-replay-0.sock'
  assert replay_socket.address('0123456789abcdef-rest', 'replay/0') == f'unix:{short_tmp}/{name}'
  monkeypatch.setattr(replay_socket.tempfile, 'gettempdir', lambda: '/scratch/' + 'x' * 90)
  assert replay_socket.address('0123456789abcdef', 'replay/0') == f'unix:/tmp/{name}'


def test_the_forwarder_carries_reverb_both_ways_on_a_socket_only_the_user_can_open(
    monkeypatch, short_tmp):
  monkeypatch.setattr(replay_socket.tempfile, 'gettempdir', lambda: str(short_tmp))
  address = replay_socket.address('0123456789abcdef-rest', 'replay/0')
  with socket.socket() as probe:
    probe.bind(('127.0.0.1', 0))
    port = probe.getsockname()[1]
  server = reverb.Server(_tables(), port=port)
  os.makedirs(os.path.dirname(address[5:]), mode=0o755)
  open(address[5:], 'w').close()  # Left by an earlier process: replaced.
  forwarder = replay_socket.SocketForwarder(address, port)
  try:
    assert stat.S_IMODE(os.stat(forwarder.path).st_mode) == 0o600
    assert stat.S_ISSOCK(os.stat(forwarder.path).st_mode)
    assert stat.S_IMODE(os.stat(os.path.dirname(forwarder.path)).st_mode) == 0o700
    _round_trip(address)
    _round_trip(address)  # A second client, a second connection.
  finally:
    forwarder.close()
    server.stop()
  assert not os.path.exists(forwarder.path)


def test_a_port_is_refused_outside_a_namespace_of_its_own():
  with open('/proc/net/dev') as f:
    if [line.split(':')[0].strip() for line in f.readlines()[2:]] == ['lo']:
      pytest.skip('this process itself runs with loopback alone')
  with pytest.raises(RuntimeError, match='network namespace of its own'):
    replay_socket.private_port()


_SERVE = textwrap.dedent('''
    import sys, time
    import reverb
    from seed_graph.nodes import replay_socket
    port = replay_socket.private_port()
    server = reverb.Server([reverb.Table.queue('queue', max_size=100)], port=port)
    replay_socket.SocketForwarder(sys.argv[1], port)
    print(port, flush=True)
    time.sleep(120)
''')


def test_a_replay_under_the_namespace_command_answers_on_its_socket_alone(short_tmp):
  reason = replay_socket.namespaces_unavailable()
  if reason:
    pytest.skip(f'user namespaces are off here: {reason}')
  address = f'unix:{short_tmp}/private/replay.sock'
  replay = subprocess.Popen([*replay_socket.NAMESPACE_COMMAND, sys.executable, '-c', _SERVE,
                             address], cwd=helpers.REPO, stdout=subprocess.PIPE, text=True)
  try:
    port = int(replay.stdout.readline())
    _round_trip(address)
    with socket.socket() as stranger:  # The port is on the namespace's loopback only.
      assert stranger.connect_ex(('127.0.0.1', port)) != 0
  finally:
    replay.kill()
    replay.wait()
