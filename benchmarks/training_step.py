r"""Wall and CPU time of one of the learner's training batches alone, and, with `--ops`,
which TensorFlow ops that time goes to.

  python -m benchmarks.training_step [--config=atari_vtrace_fast] [--batches=20] \
      [--ops=25] [--config.KEY=VALUE ...]

A smoke run (seconds): `--config=cartpole_vtrace --batches=2 --ops=5`.

The config's learner is built (no server, no actors; R2D2's replay in this process) and
fed random requests for every training environment through its own inference step, as
actors' requests would reach it, until the algorithm hands out a training batch. That
batch is trained on (`Algorithm.train`: all its epochs and minibatches) once to trace,
twice more to warm up, then `--batches` times, timed: wall and process CPU per batch.
With `--ops=N`, 5 more batches run under TensorFlow's profiler and the N op types with
the most time on TensorFlow's own threads are listed, in ms per batch (the profiler's
overhead included: compare shares, not these ms with the timed ones). oneDNN and its
instruction set are as the launchers set them for a config's nodes (the process runs
itself again if TensorFlow would load with others; an `ONEDNN_MAX_CPU_ISA` you set is
kept). Nothing else runs meanwhile: this is the training step on an idle machine,
the part of `benchmarks.cpu_profile`'s learner CPU that is not inference. Prints JSON,
then a table.
"""

import collections
import glob
import json
import os
import shutil
import sys
import tempfile
import time
from typing import Dict, List

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '2')

from absl import app  # pylint: disable=g-import-not-at-top
from absl import flags
import numpy as np

from benchmarks import learners
from seed_graph.launch.runs import tensorflow_environment

_CONFIG = flags.DEFINE_string('config', 'atari_vtrace_fast', 'Experiment config, a preset\'s '
                              'name or a .py file (overridden by --config.KEY=VALUE).')
_BATCHES = flags.DEFINE_integer('batches', 20, 'Timed training batches.')
_OPS = flags.DEFINE_integer('ops', 0, 'List this many op types by profiled time (0: none).')
_MAX_INFERENCE_STEPS = 100_000  # A config whose batch never comes (a bug) still ends.
_PROFILED_BATCHES = 5
# Events on TensorFlow's threads that hold the ops' own events rather than an op.
_ENCLOSING_EVENTS = frozenset({'Process', 'ExecutorDoneCallback'})
_OVERRIDES = []  # The KEY=VALUE of every --config.KEY=VALUE, in order.


def first_batch(learner, config, rng):
  """Random requests for every training environment through `learner.infer_batch`
  until its algorithm has a training batch; returns it."""
  from seed_graph import envs  # pylint: disable=g-import-not-at-top
  from seed_graph.config import id_ranges  # pylint: disable=g-import-not-at-top
  from seed_graph.inference import messages  # pylint: disable=g-import-not-at-top
  spec = envs.read_spec(learners.acting_env(config))
  count = id_ranges.num_training_envs(config)
  shape, dtype = (count,) + tuple(spec.observation_shape), np.dtype(spec.observation_dtype)
  for _ in range(_MAX_INFERENCE_STEPS):
    dones = rng.random(count) < 0.001
    if np.issubdtype(dtype, np.integer):
      observations = rng.integers(0, 256, shape).astype(dtype)
    else:
      observations = rng.normal(size=shape).astype(dtype)
    learner.infer_batch([messages.InferenceRequest(
        np.arange(count, dtype=np.int32), np.ones(count, np.int64),
        rng.normal(size=count).astype(np.float32), dones, np.zeros(count, bool),
        observations, False, dones)])
    batch = learner.algorithm.next_batch()
    if batch is not None:
      return batch
  sys.exit(f'error: no training batch after {_MAX_INFERENCE_STEPS} inference steps')


def time_batches(algorithm, batch, count: int) -> Dict[str, float]:
  """Wall and CPU ms per `algorithm.train(batch)`, over `count` calls."""
  start, start_cpu = time.perf_counter(), time.process_time()
  for _ in range(count):
    algorithm.train(batch)
  return {'wall_ms': round(1e3 * (time.perf_counter() - start) / count, 2),
          'cpu_ms': round(1e3 * (time.process_time() - start_cpu) / count, 2)}


def profile_ops(algorithm, batch, top: int) -> List[Dict]:
  """The `top` op types by time on TensorFlow's threads, in ms per batch, with shares."""
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  from tensorflow.core.profiler.protobuf import xplane_pb2  # pylint: disable=g-import-not-at-top
  trace_dir = tempfile.mkdtemp(prefix='seed_graph_training_step_')
  try:
    tf.profiler.experimental.start(trace_dir)
    for _ in range(_PROFILED_BATCHES):
      algorithm.train(batch)
    tf.profiler.experimental.stop()
    space = xplane_pb2.XSpace()
    with open(glob.glob(f'{trace_dir}/**/*.xplane.pb', recursive=True)[0], 'rb') as f:
      space.ParseFromString(f.read())
  finally:
    shutil.rmtree(trace_dir, ignore_errors=True)
  by_op = collections.Counter()
  for plane in space.planes:
    for line in plane.lines:
      if not line.name.startswith('tf_'):  # TensorFlow's op threads, not Python's.
        continue
      for event in line.events:
        op = plane.event_metadata[event.metadata_id].name.split(':')[-1]
        if op not in _ENCLOSING_EVENTS:
          by_op[op] += event.duration_ps / 1e9 / _PROFILED_BATCHES
  total = sum(by_op.values()) or 1.0
  return [{'op': op, 'ms': round(ms, 2), 'share': round(ms / total, 3)}
          for op, ms in by_op.most_common(top)]


def main(argv):
  del argv
  config = learners.load_config(_CONFIG.value, _OVERRIDES)
  # oneDNN (and its instruction set) as the launchers set them for their nodes.
  tensorflow_environment.run_again_with(config.onednn, 'benchmarks.training_step')
  from seed_graph.algos import precision  # pylint: disable=g-import-not-at-top
  config.logdir = tempfile.mkdtemp(prefix='seed_graph_training_step_logdir_')
  try:
    learner, _replay = learners.build_learner(config)  # The server lives while we time.
    batch = first_batch(learner, config, np.random.default_rng(0))
    time_batches(learner.algorithm, batch, 3)  # Traces, then warms up.
    timing = time_batches(learner.algorithm, batch, _BATCHES.value)
    ops = profile_ops(learner.algorithm, batch, _OPS.value) if _OPS.value else []
  finally:
    shutil.rmtree(config.logdir, ignore_errors=True)
  result = {'config': _CONFIG.value, 'overrides': _OVERRIDES, 'algorithm': config.algorithm,
            'compute_dtype': precision.resolve(config.network)[0], 'onednn': config.onednn,
            'max_cpu_isa': os.environ.get(tensorflow_environment.MAX_ISA_VARIABLE),
            'cpu_count': os.cpu_count(), 'batches': _BATCHES.value, **timing, 'ops': ops}
  print(json.dumps(result))
  print(f"training batch ({_CONFIG.value}): {timing['wall_ms']:.1f} ms wall, "
        f"{timing['cpu_ms']:.1f} ms CPU (mean of {_BATCHES.value})")
  for row in ops:
    print(f"{row['ms']:9.2f} ms {100 * row['share']:5.1f}%  {row['op']}")


if __name__ == '__main__':
  from seed_graph.launch.runs import config_args  # pylint: disable=g-import-not-at-top
  app.run(main, flags_parser=config_args.flags_parser(_OVERRIDES))
