r"""Inference rows/s of a learner split over 1, 2 and 4 inference devices (logical CPU
devices here), with the same TensorFlow thread pools in every case.

  python -m benchmarks.inference_devices [--devices=1,2,4] [--rounds=3] [--seconds=10]
      [--config=atari_vtrace_fast] [--rows=16] [--threads=2] \
      [--config.KEY=VALUE ...]

A smoke run (seconds): `--devices=1,2 --rounds=1 --seconds=1
--config=cartpole_vtrace --rows=4`.

Each measurement is a fresh process (the split must come before TensorFlow starts)
holding the learner of `--config` (V-trace, or R2D2 with an in-process replay) with
its network, `learner.inference_devices=N` and one training device. N threads call
`Learner.run_policy` on their own device as fast as they
can, for `--seconds` after a warm-up, on `--rows` random rows each (what one inference
batch holds). The device counts alternate within each round, so drift in this machine's
speed touches them alike; the summary is each count's median rows/s and its ratio to
the first count's, in the same run. Prints a JSON line per measurement, a table, then
a JSON line of the summary.
"""

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from absl import app
from absl import flags

from benchmarks import learners

_DEVICES = flags.DEFINE_list('devices', ['1', '2', '4'], 'Inference device counts.')
_ROUNDS = flags.DEFINE_integer('rounds', 3, 'Alternating rounds over the counts.')
_SECONDS = flags.DEFINE_float('seconds', 10.0, 'Timed window per measurement.')
_CONFIG = flags.DEFINE_string('config', 'atari_vtrace_fast', 'Experiment config, a preset or '
                              'a .py file (overridden by --config.KEY=VALUE).')
_ROWS = flags.DEFINE_integer('rows', 16, 'Rows per policy call.')
_THREADS = flags.DEFINE_integer('threads', 2, 'TensorFlow intra- and inter-op threads '
                                '(the same for every count).')
_MEASURE = flags.DEFINE_integer('measure', 0, 'Internal: measure this many devices.')
_OVERRIDES = []  # The KEY=VALUE of every --config.KEY=VALUE, in order.


def measure(num_devices: int, logdir: str) -> dict:
  """In this (fresh) process: rows/s of `num_devices` inference devices served at once."""
  import numpy as np  # pylint: disable=g-import-not-at-top
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  tf.config.threading.set_intra_op_parallelism_threads(_THREADS.value)
  tf.config.threading.set_inter_op_parallelism_threads(_THREADS.value)
  config = learners.load_config(_CONFIG.value, _OVERRIDES)
  config.logdir = logdir
  config.network.compute_dtype = 'float32'  # This process runs without oneDNN.
  config.inference.batch_size = max(config.inference.batch_size, _ROWS.value)
  config.learner.inference_devices, config.learner.training_devices = num_devices, 1
  learner, _replay = learners.build_learner(config)  # The server lives while we measure.
  example = learner.algorithm.example_policy_inputs()
  rng = np.random.default_rng(0)
  rows = _ROWS.value
  inputs = tf.nest.map_structure(
      lambda x: rng.integers(0, 2, (rows,) + tuple(x.shape[1:])).astype(
          x.dtype.as_numpy_dtype), example)
  counts = [0] * num_devices
  stop = threading.Event()

  def serve(device):
    while not stop.is_set():
      learner.run_policy(device, *inputs)
      counts[device] += rows

  for device in range(num_devices):  # Warm-up: traces and first calls.
    for _ in range(5):
      learner.run_policy(device, *inputs)
  threads = [threading.Thread(target=serve, args=(d,)) for d in range(num_devices)]
  start = time.perf_counter()
  for thread in threads:
    thread.start()
  time.sleep(_SECONDS.value)
  stop.set()
  for thread in threads:
    thread.join()
  elapsed = time.perf_counter() - start
  return {'inference_devices': num_devices, 'rows_per_second': sum(counts) / elapsed,
          'per_device': [c / elapsed for c in counts]}


def main(argv):
  del argv
  if _MEASURE.value:
    logdir = tempfile.mkdtemp(prefix='seed_graph_inference_devices_')
    try:
      print(json.dumps(measure(_MEASURE.value, logdir)), flush=True)
    finally:
      shutil.rmtree(logdir, ignore_errors=True)
    return
  learners.load_config(_CONFIG.value, _OVERRIDES)  # A bad config fails here, once.
  counts = [int(d) for d in _DEVICES.value]
  results = {n: [] for n in counts}
  for round_index in range(_ROUNDS.value):
    for n in counts:
      run = subprocess.run(
          [sys.executable, '-m', 'benchmarks.inference_devices', f'--measure={n}',
           f'--seconds={_SECONDS.value}', f'--config={_CONFIG.value}',
           f'--rows={_ROWS.value}', f'--threads={_THREADS.value}']
          + [f'--config.{override}' for override in _OVERRIDES],
          capture_output=True, text=True, env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL='2'))
      if run.returncode:
        sys.exit(f'error: the measurement of {n} devices failed (exit code '
                 f'{run.returncode}):\n{run.stderr[-3000:]}')
      record = json.loads(run.stdout.strip().splitlines()[-1])
      record['round'] = round_index
      print(json.dumps(record), flush=True)
      results[n].append(record['rows_per_second'])
  medians = {n: statistics.median(results[n]) for n in counts}
  print(f"{'inference devices':<18} {'rows/s (median)':>16} {'ratio':>7}   "
        f"({_ROWS.value} rows a call, {_THREADS.value} TF threads, {_ROUNDS.value} rounds)")
  for n in counts:
    print(f'{n:<18} {medians[n]:>16,.0f} {medians[n] / medians[counts[0]]:>7.2f}')
  print(json.dumps({
      'config': _CONFIG.value, 'overrides': _OVERRIDES, 'rows': _ROWS.value,
      'threads': _THREADS.value, 'rounds': _ROUNDS.value, 'cpu_count': os.cpu_count(),
      'median_rows_per_second': {str(n): round(medians[n], 1) for n in counts},
      'ratio_to_first': {str(n): round(medians[n] / medians[counts[0]], 3)
                         for n in counts}}))


if __name__ == '__main__':
  from seed_graph.launch.runs import config_args  # pylint: disable=g-import-not-at-top
  app.run(main, flags_parser=config_args.flags_parser(_OVERRIDES))
