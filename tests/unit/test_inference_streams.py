"""Stream slots of the inference server: strays cannot starve actors, dead streams are
closed (real gRPC streams on loopback)."""

import os
import signal
import subprocess
import sys
import threading
import time

import grpc
import numpy as np
import portpicker
import pytest

from seed_graph.inference import messages
from seed_graph.inference import server as server_lib
from seed_graph.inference import transport
from tests import helpers

MAX_CALLERS = 4


def _answer_zeros(requests):
  return [np.zeros(len(r.env_ids), np.int32) for r in requests]


@pytest.fixture
def server():
  parser = messages.RequestParser((2,), np.float32, num_training_envs=8, num_envs=8,
                                  max_rows=4)
  inference = server_lib.InferenceServer(parser, _answer_zeros, max_batch_rows=8,
                                         timeout_us=1000, max_callers=MAX_CALLERS,
                                         claim_timeout_seconds=1.0, idle_timeout_seconds=2.0)
  port = portpicker.pick_unused_port()
  inference.start(port)
  inference.address = f'localhost:{port}'
  yield inference
  inference.shutdown()


def _request(first_env, rows=2):
  return messages.encode_request(
      np.arange(first_env, first_env + rows, dtype=np.int32), np.ones(rows, np.int64),
      np.zeros(rows, np.float32), np.zeros(rows, bool), np.zeros(rows, bool),
      np.zeros((rows, 2), np.float32), False)


def _wait_for(condition, seconds=15.0):
  deadline = time.time() + seconds
  while not condition() and time.time() < deadline:
    time.sleep(0.05)
  return condition()


def test_idle_strays_cannot_starve_an_actor_and_are_closed(server):
  client = transport.InferenceClient(server.address)
  strays = [client.open_stream() for _ in range(3 * server_lib.SPARE_STREAMS)]
  # Never more unclaimed streams than the spare slots, however many were opened.
  assert _wait_for(lambda: server.slots.counts()[1] == server_lib.SPARE_STREAMS)
  actor = client.open_stream()
  for _ in range(5):
    assert messages.decode_actions(actor.infer(_request(0))).tolist() == [0, 0]
  assert server.slots.counts()[0] == 1
  # Strays that never send a request are closed after the claim timeout.
  assert _wait_for(lambda: server.slots.counts() == (1, 0))
  with pytest.raises(grpc.RpcError) as error:
    strays[-1].receive()
  assert error.value.code() == grpc.StatusCode.CANCELLED
  actor.close()


def test_reconnect_replaces_the_old_stream_and_silence_closes_it(server):
  client = transport.InferenceClient(server.address)
  old = client.open_stream()
  old.infer(_request(4))
  new = client.open_stream()  # The same actor, reconnecting: same environments.
  new.infer(_request(4))
  with pytest.raises(grpc.RpcError) as error:
    old.infer(_request(4))
  assert error.value.code() == grpc.StatusCode.CANCELLED
  assert server.slots.counts() == (1, 0)
  time.sleep(0.5)  # Waiting on us for less than the idle timeout is fine...
  new.infer(_request(4))
  # ...but a stream silent past it is closed, and its slot is free again.
  assert _wait_for(lambda: server.slots.counts() == (0, 0))
  with pytest.raises(grpc.RpcError):
    new.infer(_request(4))


def test_only_streams_with_the_run_secret_are_served():
  parser = messages.RequestParser((2,), np.float32, 8, 8, max_rows=4)
  inference = server_lib.InferenceServer(parser, _answer_zeros, 8, 1000, MAX_CALLERS)
  port = portpicker.pick_unused_port()
  inference.start(port, secret='the-run-secret')
  try:
    for secret in (None, 'a-wrong-secret', 'the-run-secre', ''):
      stream = transport.InferenceClient(f'localhost:{port}', secret=secret).open_stream()
      with pytest.raises(grpc.RpcError) as error:
        stream.infer(_request(0))
      assert error.value.code() == grpc.StatusCode.UNAUTHENTICATED, secret
      assert 'secret' in error.value.details()
    assert inference.slots.counts() == (0, 0)  # Refused before it held a slot.
    actor = transport.InferenceClient(f'localhost:{port}',
                                      secret='the-run-secret').open_stream()
    assert messages.decode_actions(actor.infer(_request(0))).tolist() == [0, 0]
    actor.close()
  finally:
    inference.shutdown()


def test_time_spent_answering_does_not_count_as_idle():
  parser = messages.RequestParser((2,), np.float32, 8, 8, max_rows=4)
  release = threading.Event()

  def slow_answer(requests):
    release.wait(10)
    return _answer_zeros(requests)

  inference = server_lib.InferenceServer(parser, slow_answer, 8, 1000, MAX_CALLERS,
                                         claim_timeout_seconds=0.5,
                                         idle_timeout_seconds=0.5)
  port = portpicker.pick_unused_port()
  inference.start(port)
  try:
    stream = transport.InferenceClient(f'localhost:{port}').open_stream()
    stream.send(_request(0))
    time.sleep(2.0)  # Back-pressure: the server holds the request far past both timeouts.
    release.set()
    assert messages.decode_actions(stream.receive()).tolist() == [0, 0]
    assert inference.slots.closed_streams == 0
  finally:
    release.set()
    inference.shutdown()


_ECHO_SERVER = '''
import sys, time
from seed_graph.inference import transport
transport.serve(int(sys.argv[1]), lambda requests, context: iter(requests), max_streams=4,
                keepalive_seconds=1.0)
print('serving', flush=True)
time.sleep(600)
'''


def test_a_stream_to_a_frozen_server_fails_instead_of_waiting_forever():
  # A server that stops answering without closing its connection (SIGSTOP here; a cut
  # link or a powered-off host across machines): keepalive pings go unanswered, and the
  # waiting receive() fails with UNAVAILABLE, so an actor reconnects instead of hanging.
  port = portpicker.pick_unused_port()
  server = subprocess.Popen([sys.executable, '-c', _ECHO_SERVER, str(port)],
                            cwd=helpers.REPO, stdout=subprocess.PIPE, text=True)
  try:
    assert server.stdout.readline().strip() == 'serving'
    stream = transport.InferenceClient(f'localhost:{port}',
                                       keepalive_seconds=1.0).open_stream()
    assert stream.infer(b'ping') == b'ping'
    server.send_signal(signal.SIGSTOP)
    # kill() returns before the stop takes hold; under load the server could still echo
    # the next request (seen 1 run in 15). Wait until the kernel reports it stopped.
    os.waitpid(server.pid, os.WUNTRACED)
    stream.send(b'unanswered')
    start = time.time()
    with pytest.raises(grpc.RpcError) as error:
      stream.receive()
    assert error.value.code() == grpc.StatusCode.UNAVAILABLE
    assert time.time() - start < 10  # Keepalive 1 s: noticed within about 2 s.
  finally:
    server.kill()
    server.wait()
