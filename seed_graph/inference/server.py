"""The learner's side of the inference edge: the stream server and the padded policy.

`InferenceServer` parses each stream's messages (a bad one fails that caller only, with
INVALID_ARGUMENT), batches requests across callers with a `DynamicBatcher` around
`infer_batch(requests) -> actions per request`, and answers each stream in order.

`PaddedPolicy` runs a policy function on batches of any size: traced once; as an XLA
program, called on rows padded up to one of at most six bucket sizes and answered with
the padding removed (a TF graph takes any number of rows as they are).
"""

import functools
import threading
import time
from typing import Dict, List, Optional

from absl import logging
import grpc
import numpy as np
import tensorflow as tf

from seed_graph.inference import batching
from seed_graph.inference import messages
from seed_graph.inference import streams
from seed_graph.inference import transport
from seed_graph.inference import wire

# Streams that have not sent a valid request yet (reconnecting actors, strays) may hold
# this many slots beyond one per actor and evaluator stream; as many again are kept so
# that a refusal beyond them still finds a thread to answer with.
SPARE_STREAMS = 16


def pad_rows(array: np.ndarray, rows: int) -> np.ndarray:
  """Zero rows appended up to `rows`; the array itself (no copy) if it has that many."""
  missing = rows - len(array)
  if not missing:
    return array
  return np.concatenate([array, np.zeros((missing,) + array.shape[1:], array.dtype)])


def bucket_sizes(max_rows: int) -> List[int]:
  """Padded batch sizes: powers of two below max_rows, then max_rows (at most six),
  so a compiler that specializes on shapes (XLA, TPUs) sees few shapes."""
  sizes = [max_rows]
  while len(sizes) < 6 and sizes[-1] > 1:
    sizes.append(sizes[-1] // 2)
  return sorted(set(sizes))


def trace_for_any_batch(fn, *example_inputs, jit_compile: bool = False, batch_sizes=()):
  """`fn` traced once as a TF graph for inputs shaped like `example_inputs` (nests of
  tensors with a leading batch dimension) but with any number of rows.

  Returns a callable taking the same (NumPy or tensor) inputs. It runs the one concrete
  function, which skips the argument matching a `tf.function` does on every call (about
  0.5 ms per inference batch on a CPU), and no batch size can trigger a retrace in the
  middle of a run. With `jit_compile` the graph runs as one XLA program, which compiles
  once per input shape: each of `batch_sizes` is compiled here, on zeros, rather than by
  the first request of that size.
  """
  signature = tf.nest.map_structure(
      lambda x: tf.TensorSpec((None,) + tuple(x.shape[1:]), x.dtype), example_inputs)
  concrete = tf.function(fn, input_signature=signature,
                         jit_compile=jit_compile).get_concrete_function()
  call = lambda *inputs: concrete(*tf.nest.map_structure(tf.convert_to_tensor, inputs))
  if jit_compile:
    for rows in batch_sizes:
      call(*tf.nest.map_structure(
          lambda x, rows=rows: tf.zeros((rows,) + tuple(x.shape[1:]), x.dtype),
          example_inputs))
  return call


class PaddedPolicy:
  """`policy(*inputs)`: `fn` on NumPy inputs of 1..max_rows rows, returning NumPy
  outputs with as many rows. `traces` counts how often `fn` was traced (once).
  `buckets`: the padded sizes, for XLA only; a TF graph's padding would be computed for
  nothing (an evaluator's 2 rows and an actor's 16 were padded to 34)."""

  def __init__(self, fn, example_inputs, max_rows: int, jit_compile: bool = False):
    self.traces = 0
    self.buckets = bucket_sizes(max_rows) if jit_compile else []

    def counted(*inputs):
      self.traces += 1  # Runs at trace time only.
      return fn(*inputs)

    self._call = trace_for_any_batch(counted, *example_inputs, jit_compile=jit_compile,
                                     batch_sizes=self.buckets)

  def __call__(self, *inputs):
    rows = len(tf.nest.flatten(inputs)[0])
    if self.buckets:
      padded = next(size for size in self.buckets if size >= rows)
      inputs = tf.nest.map_structure(lambda x: pad_rows(x, padded), inputs)
    outputs = self._call(*inputs)
    return tf.nest.map_structure(lambda x: x.numpy()[:rows], outputs)


class RateLimitedLog:
  """Logs at most one warning per `interval_seconds`, with the count it held back, so a
  peer that floods the edge with bad messages cannot flood the log."""

  def __init__(self, interval_seconds: float = 10.0):
    self._interval = interval_seconds
    self._lock = threading.Lock()
    self._next_time = 0.0
    self._held_back = 0
    self.count = 0

  def warning(self, message: str):
    with self._lock:
      self.count += 1
      now = time.monotonic()
      if now < self._next_time:
        self._held_back += 1
        return
      held_back, self._held_back = self._held_back, 0
      self._next_time = now + self._interval
    logging.warning('%s (%d more like it not logged)', message, held_back)


class InferenceServer:
  """See the module docstring. `parse_request(bytes) -> InferenceRequest`; malformed
  requests fail their caller with INVALID_ARGUMENT and are counted in `stats()`. With
  `num_workers` > 1, that many batches are in flight at once, worker k calling
  `infer_batch(requests, device=k)`."""

  def __init__(self, parse_request: messages.RequestParser, infer_batch,
               max_batch_rows: int, timeout_us: int, max_callers: int,
               claim_timeout_seconds: float = 10.0, idle_timeout_seconds: float = 60.0,
               num_workers: int = 1):
    self._parse_request = parse_request
    self._max_streams = max_callers + 2 * SPARE_STREAMS
    self.slots = streams.StreamSlots(SPARE_STREAMS, claim_timeout_seconds,
                                     idle_timeout_seconds)
    # With several workers (inference devices), worker k calls infer_batch(..., k).
    workers = [infer_batch] if num_workers == 1 else [
        functools.partial(infer_batch, device=k) for k in range(num_workers)]
    self.batcher = batching.DynamicBatcher(
        workers, max_batch_rows, timeout_us,
        request_keys=lambda request: request.env_ids,
        is_background=lambda request: request.is_eval)  # An evaluator's request.
    self._server = None
    self._rejections = RateLimitedLog()

  def stats(self) -> Dict[str, int]:
    """Counters since start: batches and rows inferred, requests rejected as malformed,
    and the actors' streams open now."""
    return dict(inference_batches=self.batcher.batches_processed,
                inference_rows=self.batcher.rows_processed,
                rejected_requests=self._rejections.count,
                inference_streams=self.slots.counts()[0])

  def start(self, port: int, secret: Optional[str] = None,
            keepalive_seconds: float = transport.KEEPALIVE_SECONDS, host: str = '[::]'):
    """Serves on `host:port`; with a `secret`, only to streams that carry it."""
    self.batcher.start()
    self.slots.start()
    self._server = transport.serve(port, self._serve_stream, self._max_streams,
                                   self._parse_request.max_message_bytes(),
                                   keepalive_seconds, secret, host)

  def stop_batching(self) -> bool:
    """Fails waiting and new requests (UNAVAILABLE); the server stays up. Whether every
    batch in flight has finished (`DynamicBatcher.stop`)."""
    return self.batcher.stop()

  def shutdown(self):
    self.batcher.stop()
    self.slots.stop()
    if self._server is not None:
      self._server.stop(grace=1).wait()

  def _serve_stream(self, request_iterator, context):
    self.slots.open(context)
    try:
      for message in request_iterator:
        request = self._parse_or_abort(message, context)
        self.slots.claim(context, int(request.env_ids[0]))
        try:
          actions = self.batcher.submit(request).result()
        except batching.BatcherStopped as e:
          context.abort(grpc.StatusCode.UNAVAILABLE, str(e))
        except Exception as e:  # pylint: disable=broad-except
          logging.exception('inference failed')
          context.abort(grpc.StatusCode.INTERNAL, f'inference failed: {e}')
        yield messages.encode_actions(actions)
        self.slots.waiting(context)
    finally:
      self.slots.close(context)

  def _parse_or_abort(self, message, context) -> messages.InferenceRequest:
    try:
      return self._parse_request(message)
    except Exception as e:  # pylint: disable=broad-except
      # A peer's bytes must never fail the server: anything the parser did not foresee
      # is a bad request too.
      reason = str(e) if isinstance(e, wire.WireFormatError) else type(e).__name__
      self._rejections.warning(f'rejected an inference request from {context.peer()}: '
                               f'{reason}')
      context.abort(grpc.StatusCode.INVALID_ARGUMENT, f'bad inference request: {reason}')
