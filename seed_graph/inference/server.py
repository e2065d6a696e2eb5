"""The learner's side of the inference edge: the stream server and the padded policy.

`InferenceServer` parses each stream's messages (a bad one fails that caller only, with
INVALID_ARGUMENT), batches requests across callers with a `DynamicBatcher` around
`infer_batch(requests) -> actions per request`, and answers each stream in order.

`PaddedPolicy` runs a policy function on batches of any size: traced once, called on
rows padded up to one of at most six bucket sizes, answered with the padding removed.
"""

from typing import List

from absl import logging
import grpc
import numpy as np
import tensorflow as tf

from seed_graph.inference import batching
from seed_graph.inference import messages
from seed_graph.inference import transport
from seed_graph.inference import wire

# Streams beyond one per actor and evaluator, so reconnecting callers find a slot.
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


def trace_for_any_batch(fn, *example_inputs, jit_compile=False, batch_sizes=()):
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
  outputs with as many rows. `traces` counts how often `fn` was traced (once)."""

  def __init__(self, fn, example_inputs, max_rows: int, jit_compile: bool = False):
    self.traces = 0
    self.buckets = bucket_sizes(max_rows)

    def counted(*inputs):
      self.traces += 1  # Runs at trace time only.
      return fn(*inputs)

    self._call = trace_for_any_batch(counted, *example_inputs, jit_compile=jit_compile,
                                     batch_sizes=self.buckets)

  def __call__(self, *inputs):
    rows = len(tf.nest.flatten(inputs)[0])
    padded = next(size for size in self.buckets if size >= rows)
    outputs = self._call(*tf.nest.map_structure(lambda x: pad_rows(x, padded), inputs))
    return tf.nest.map_structure(lambda x: x.numpy()[:rows], outputs)


class InferenceServer:
  """See the module docstring. `parse_request(bytes) -> InferenceRequest`."""

  def __init__(self, parse_request: messages.RequestParser, infer_batch,
               max_batch_rows: int, timeout_us: int, max_callers: int):
    self._parse_request = parse_request
    self._max_streams = max_callers + SPARE_STREAMS
    self.batcher = batching.DynamicBatcher(
        infer_batch, max_batch_rows, timeout_us,
        request_keys=lambda request: request.env_ids)
    self._server = None

  def start(self, port: int):
    self.batcher.start()
    self._server = transport.serve(port, self._serve_stream, self._max_streams)

  def stop_batching(self):
    """Fails waiting and new requests (UNAVAILABLE); the server stays up."""
    self.batcher.stop()

  def shutdown(self):
    self.batcher.stop()
    if self._server is not None:
      self._server.stop(grace=1).wait()

  def _serve_stream(self, request_iterator, context):
    for message in request_iterator:
      try:
        request = self._parse_request(message)
      except wire.WireFormatError as e:
        context.abort(grpc.StatusCode.INVALID_ARGUMENT, f'bad inference request: {e}')
      try:
        actions = self.batcher.submit(request).result()
      except batching.BatcherStopped as e:
        context.abort(grpc.StatusCode.UNAVAILABLE, str(e))
      except Exception as e:  # pylint: disable=broad-except
        logging.exception('inference failed')
        context.abort(grpc.StatusCode.INTERNAL, f'inference failed: {e}')
      yield messages.encode_actions(actions)
