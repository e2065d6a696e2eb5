r"""CPU and wall time of one call of the learner's inference function, as a TF graph and
as an XLA program (`inference.jit_compile`).

  python -m benchmarks.inference_call [--config=atari_vtrace] [--rows=N]
      [--calls=...] [--config.KEY=VALUE ...]

A smoke run (seconds): `--config=cartpole_vtrace --rows=4 --calls=5`.

Without `--config`: `throughput.py`'s tiny policy on Atari observations, 32 rows. With
one: that config's learner (V-trace, or R2D2 with an in-process replay) and network,
`inference.batch_size` rows unless `--rows` says otherwise, oneDNN and its instruction
set as the launchers set them for the config's nodes (TensorFlow reads them once, when
it loads, and loading a config loads it, so the benchmark runs itself again with them
if this process has others; an `ONEDNN_MAX_CPU_ISA` you set is kept). The learner is built (no server) and
its traced inference function is called on random inputs: first as a TF graph, then as
an XLA program. Prints JSON, then a table.
"""

import json
import os
import shutil
import time

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '2')

from absl import app  # pylint: disable=g-import-not-at-top
from absl import flags
import numpy as np

from benchmarks import learners
from benchmarks import throughput
from seed_graph.launch.runs import tensorflow_environment

_CONFIG = flags.DEFINE_string(
    'config', None, "Config whose learner and network to time (overridden by "
    "--config.KEY=VALUE); default: throughput.py's tiny policy.")
_ROWS = flags.DEFINE_integer('rows', None, 'Rows per call; default: inference.batch_size.')
_CALLS = flags.DEFINE_integer('calls', None, 'Timed calls; default: about 3 s worth.')
_OVERRIDES = []  # The KEY=VALUE of every --config.KEY=VALUE, in order.


def _random_inputs(learner, rows, rng):
  """`rows` rows shaped like the policy's example inputs: random actions and pixels."""
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  example = learner.algorithm.example_policy_inputs()

  def like(x):
    x = np.asarray(x)
    shape = (rows,) + x.shape[1:]
    if x.dtype == np.uint8:
      return rng.integers(0, 256, shape, dtype=np.uint8)
    if np.issubdtype(x.dtype, np.integer):
      return rng.integers(0, 2, shape).astype(x.dtype)
    return np.zeros(shape, x.dtype)
  return tf.nest.map_structure(like, example)


def time_calls(config, jit_compile, rows, calls):
  config = config.copy_and_resolve_references()
  config.inference.jit_compile = jit_compile
  config.inference.batch_size = max(config.inference.batch_size, rows)
  config.logdir = f'/tmp/seed_graph_inference_call_{os.getpid()}_{int(jit_compile)}'
  learner, _replay = learners.build_learner(config)  # The server lives while we time.
  inputs = _random_inputs(learner, rows, np.random.default_rng(0))
  infer = learner.policies[0]  # Padded to a bucket size under XLA only; NumPy out.
  start = time.perf_counter()
  np.asarray(infer(*inputs)[0])
  calls = calls or max(10, int(3.0 / max(time.perf_counter() - start, 1e-4)))
  for _ in range(max(3, calls // 10)):
    np.asarray(infer(*inputs)[0])
  start, start_cpu = time.perf_counter(), time.process_time()
  for _ in range(calls):
    np.asarray(infer(*inputs)[0])
  shutil.rmtree(config.logdir, ignore_errors=True)
  return {'jit_compile': jit_compile, 'calls': calls,
          'wall_ms': round(1e3 * (time.perf_counter() - start) / calls, 3),
          'cpu_ms': round(1e3 * (time.process_time() - start_cpu) / calls, 3)}


def main(argv):
  del argv
  if _CONFIG.value is None:
    if _OVERRIDES:
      raise app.UsageError('--config.KEY=VALUE needs a --config')
    config = throughput.benchmark_config('atari', 2, 32, 1, 32, 5000)
    name = "throughput.py's tiny policy"
  else:
    config = learners.load_config(_CONFIG.value, _OVERRIDES)
    name = _CONFIG.value
  # oneDNN (and its instruction set) as the launchers set them for their nodes.
  tensorflow_environment.run_again_with(config.onednn, 'benchmarks.inference_call')
  rows = _ROWS.value or config.inference.batch_size
  results = [time_calls(config, jit, rows, _CALLS.value) for jit in (False, True)]
  print(json.dumps({'config': name, 'overrides': _OVERRIDES, 'torso': config.network.torso,
                    'rows': rows, 'compute_dtype': config.network.compute_dtype,
                    'onednn': config.onednn, 'results': results}))
  print(f"{'jit_compile':<12} {'wall ms':>9} {'cpu ms':>9}   ({name}, {rows} rows)")
  for r in results:
    print(f"{str(r['jit_compile']):<12} {r['wall_ms']:>9.3f} {r['cpu_ms']:>9.3f}")


if __name__ == '__main__':
  from seed_graph.launch.runs import config_args  # pylint: disable=g-import-not-at-top
  app.run(main, flags_parser=config_args.flags_parser(_OVERRIDES))
