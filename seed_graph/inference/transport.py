"""The central inference edge: one bidirectional gRPC stream per actor, raw bytes each way.

The payloads are `seed_graph.inference.messages`; this module only moves bytes. It uses
grpcio's generic handlers (no generated protos), so the method is `/seed_graph.Inference/Infer`.
"""

import concurrent.futures
import hmac
import os
import queue
import threading
from typing import Callable, Iterator, Optional

import grpc

METHOD = '/seed_graph.Inference/Infer'
MAX_MESSAGE_BYTES = 256 << 20
# A peer that vanishes without closing its connection (a host powered off, a link cut, a
# frozen process) would leave the other side of its stream waiting forever: an actor in
# `receive()`, the server holding the stream's thread and slot. Both sides ping every
# KEEPALIVE_SECONDS and drop a connection whose ping is not answered within as long, so
# such a peer is noticed within about twice that (UNAVAILABLE at the actor, which then
# reconnects; the server's stream ends and frees its slot).
KEEPALIVE_SECONDS = 10.0
# Who may use the edge: a launcher generates a secret per run and gives it to its nodes in
# this environment variable; every stream must carry it in its metadata, or it ends with
# UNAUTHENTICATED before it holds a slot. (The control edge checks the same secret as
# each call's first argument: seed_graph/nodes/learner/control_edge.py. Reverb, a
# compiled server, cannot check anything of the kind; see docs/security.md.)
RUN_SECRET_VARIABLE = 'SEED_GRAPH_RUN_SECRET'
SECRET_METADATA_KEY = 'x-seed-graph-run-secret'


def run_secret() -> Optional[str]:
  """This process's run secret (from its launcher), or None outside a launch."""
  return os.environ.get(RUN_SECRET_VARIABLE) or None


def callers_secret() -> str:
  """The secret a caller sends with each control-edge call: this process's run secret,
  or '' outside a launch (where the learner checks nothing either)."""
  return run_secret() or ''


def _keepalive_options(seconds: float):
  milliseconds = int(seconds * 1000)
  return [('grpc.keepalive_time_ms', milliseconds),
          ('grpc.keepalive_timeout_ms', milliseconds),
          # grpcio 1.85 waits this long (default 60 s) for a ping's answer, whatever
          # keepalive_timeout_ms says (measured: 60 s without it, 1 s with it at 1 s).
          ('grpc.http2.ping_timeout_ms', milliseconds),
          ('grpc.keepalive_permit_without_calls', 1),
          ('grpc.http2.max_pings_without_data', 0)]


def _server_keepalive_options(seconds: float):
  # gRPC servers answer a client that pings more often than every 5 minutes with
  # GOAWAY ("too_many_pings") unless told to accept them.
  return _keepalive_options(seconds) + [
      ('grpc.http2.min_recv_ping_interval_without_data_ms', int(seconds * 500)),
      ('grpc.http2.max_ping_strikes', 0)]

StreamHandler = Callable[[Iterator[bytes], grpc.ServicerContext], Iterator[bytes]]


def _requiring_secret(handle_stream: StreamHandler, secret: str) -> StreamHandler:
  expected = secret.encode()

  def handle(requests, context):
    given = dict(context.invocation_metadata()).get(SECRET_METADATA_KEY, '')
    if not hmac.compare_digest(given.encode(), expected):  # Constant time.
      context.abort(grpc.StatusCode.UNAUTHENTICATED,
                    'this stream does not carry the run\'s secret')
    yield from handle_stream(requests, context)
  return handle


def serve(port: int, handle_stream: StreamHandler, max_streams: int,
          max_request_bytes: int = MAX_MESSAGE_BYTES,
          keepalive_seconds: float = KEEPALIVE_SECONDS,
          secret: Optional[str] = None, host: str = '[::]') -> grpc.Server:
  """Starts a server on `host:port` (every interface by default) whose Infer stream is
  `handle_stream`, for streams that carry `secret` (every stream if it is None).

  Each open stream holds one server thread, so `max_streams` must cover every actor and
  evaluator (plus room for reconnects). gRPC itself refuses requests larger than
  `max_request_bytes` (RESOURCE_EXHAUSTED) before they reach the handler.
  """
  if secret is not None:
    handle_stream = _requiring_secret(handle_stream, secret)
  handler = grpc.method_handlers_generic_handler('seed_graph.Inference', {
      'Infer': grpc.stream_stream_rpc_method_handler(handle_stream),
  })
  server = grpc.server(
      concurrent.futures.ThreadPoolExecutor(
          max_workers=max_streams, thread_name_prefix='inference-stream'),
      handlers=[handler],
      options=[('grpc.max_send_message_length', MAX_MESSAGE_BYTES),
               ('grpc.max_receive_message_length', max_request_bytes)
               ] + _server_keepalive_options(keepalive_seconds),
      maximum_concurrent_rpcs=max_streams)
  server.add_insecure_port(f'{host}:{port}')
  server.start()
  return server


_CLOSE = object()


class InferenceStream:
  """One open stream. `infer(request) -> response`, or `send(request)` now and
  `receive()` later (to step other environments meanwhile); responses come in order.

  Waits for the server to come up (`wait_for_ready`), so actors may start before the
  learner. Errors surface as `grpc.RpcError` from `infer` or `receive`.
  """

  def __init__(self, channel: grpc.Channel, secret: Optional[str] = None):
    self._requests = queue.Queue()
    call = channel.stream_stream(METHOD)
    metadata = [(SECRET_METADATA_KEY, secret)] if secret is not None else None
    self._responses = call(iter(self._requests.get, _CLOSE), metadata=metadata,
                           wait_for_ready=True)
    self._lock = threading.Lock()

  def infer(self, request: bytes) -> bytes:
    with self._lock:
      self.send(request)
      return self.receive()

  def send(self, request: bytes):
    self._requests.put(request)

  def receive(self) -> bytes:
    return next(self._responses)

  def close(self):
    self._requests.put(_CLOSE)
    self._responses.cancel()


class InferenceClient:
  """A channel to the learner's inference edge; opens streams (carrying `secret`, if
  any) on demand."""

  def __init__(self, address: str, keepalive_seconds: float = KEEPALIVE_SECONDS,
               secret: Optional[str] = None):
    self.address = address
    self._secret = secret
    self._channel = grpc.insecure_channel(address, options=[
        ('grpc.max_send_message_length', MAX_MESSAGE_BYTES),
        ('grpc.max_receive_message_length', MAX_MESSAGE_BYTES),
    ] + _keepalive_options(keepalive_seconds))

  def open_stream(self) -> InferenceStream:
    return InferenceStream(self._channel, self._secret)
