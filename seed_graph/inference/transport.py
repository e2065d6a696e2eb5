"""The central inference edge: one bidirectional gRPC stream per actor, raw bytes each way.

The payloads are `seed_graph.inference.messages`; this module only moves bytes. It uses
grpcio's generic handlers (no generated protos), so the method is `/seed_graph.Inference/Infer`.
"""

import concurrent.futures
import queue
import threading
from typing import Callable, Iterator

import grpc

METHOD = '/seed_graph.Inference/Infer'
MAX_MESSAGE_BYTES = 256 << 20
_CHANNEL_OPTIONS = [
    ('grpc.max_send_message_length', MAX_MESSAGE_BYTES),
    ('grpc.max_receive_message_length', MAX_MESSAGE_BYTES),
]

StreamHandler = Callable[[Iterator[bytes], grpc.ServicerContext], Iterator[bytes]]


def serve(port: int, handle_stream: StreamHandler, max_streams: int,
          max_request_bytes: int = MAX_MESSAGE_BYTES) -> grpc.Server:
  """Starts a server on `port` whose Infer stream is `handle_stream`.

  Each open stream holds one server thread, so `max_streams` must cover every actor and
  evaluator (plus room for reconnects). gRPC itself refuses requests larger than
  `max_request_bytes` (RESOURCE_EXHAUSTED) before they reach the handler.
  """
  handler = grpc.method_handlers_generic_handler('seed_graph.Inference', {
      'Infer': grpc.stream_stream_rpc_method_handler(handle_stream),
  })
  server = grpc.server(
      concurrent.futures.ThreadPoolExecutor(
          max_workers=max_streams, thread_name_prefix='inference-stream'),
      handlers=[handler],
      options=[('grpc.max_send_message_length', MAX_MESSAGE_BYTES),
               ('grpc.max_receive_message_length', max_request_bytes)],
      maximum_concurrent_rpcs=max_streams)
  server.add_insecure_port(f'[::]:{port}')
  server.start()
  return server


_CLOSE = object()


class InferenceStream:
  """One open stream. `infer(request) -> response`, or `send(request)` now and
  `receive()` later (to step other environments meanwhile); responses come in order.

  Waits for the server to come up (`wait_for_ready`), so actors may start before the
  learner. Errors surface as `grpc.RpcError` from `infer` or `receive`.
  """

  def __init__(self, channel: grpc.Channel):
    self._requests = queue.Queue()
    call = channel.stream_stream(METHOD)
    self._responses = call(iter(self._requests.get, _CLOSE), wait_for_ready=True)
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
  """A channel to the learner's inference edge; opens streams on demand."""

  def __init__(self, address: str):
    self.address = address
    self._channel = grpc.insecure_channel(address, options=_CHANNEL_OPTIONS)

  def open_stream(self) -> InferenceStream:
    return InferenceStream(self._channel)
