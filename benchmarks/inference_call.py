r"""CPU and wall time of one call of the learner's inference function, with and without
XLA (`inference.jit_compile`), for the benchmark's tiny policy or the Atari ResNet.

  python benchmarks/inference_call.py [--torso=mlp|resnet] [--rows=32] [--calls=...]

Builds a V-trace learner-inference node (no server) on the Atari Pong config and calls
its inference function on `rows` random observations: first as a TF graph, then as an
XLA program. Prints JSON, then a table.
"""

import json
import os
import sys
import time

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '2')
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from absl import app  # pylint: disable=g-import-not-at-top
from absl import flags
import numpy as np
import tensorflow as tf
import throughput

_TORSO = flags.DEFINE_enum('torso', 'mlp', ['mlp', 'resnet'],
                           "mlp: throughput.py's tiny policy; resnet: the Atari config's.")
_ROWS = flags.DEFINE_integer('rows', 32, 'Rows per call (an inference batch).')
_CALLS = flags.DEFINE_integer('calls', None, 'Timed calls; default 300 (mlp) or 30 (resnet).')


def time_calls(jit_compile, torso, rows, calls):
  from configs import atari_vtrace  # pylint: disable=g-import-not-at-top
  from seed_graph.nodes import learner as learner_lib  # pylint: disable=g-import-not-at-top
  from seed_graph.nodes import vtrace_learner  # pylint: disable=g-import-not-at-top
  config = throughput.benchmark_config('atari', 2, rows, 1, rows, 5000, jit_compile)
  config.logdir = '/tmp/seed_graph_inference_call_unused'
  if torso == 'resnet':
    config.network = atari_vtrace.get_config().network
  learner = learner_lib.Learner(config, vtrace_learner.VTraceLearner)
  rng = np.random.default_rng(0)
  state = tf.nest.map_structure(lambda s: np.zeros((rows,) + tuple(s.shape[1:]), np.float32),
                                learner.algorithm.example_policy_inputs()[4])
  inputs = (rng.integers(0, 18, rows, dtype=np.int32), np.zeros(rows, np.float32),
            np.zeros(rows, bool), rng.integers(0, 256, (rows, 84, 84), dtype=np.uint8),
            state, np.zeros(rows, bool))
  infer = learner.policies[0]  # Padded to a bucket size (none here), NumPy out.
  for _ in range(max(3, calls // 10)):
    np.asarray(infer(*inputs)[0])
  start, start_cpu = time.perf_counter(), time.process_time()
  for _ in range(calls):
    np.asarray(infer(*inputs)[0])
  return {'jit_compile': jit_compile,
          'wall_ms': round(1e3 * (time.perf_counter() - start) / calls, 3),
          'cpu_ms': round(1e3 * (time.process_time() - start_cpu) / calls, 3)}


def main(argv):
  del argv
  calls = _CALLS.value or (300 if _TORSO.value == 'mlp' else 30)
  results = [time_calls(jit, _TORSO.value, _ROWS.value, calls) for jit in (False, True)]
  print(json.dumps({'torso': _TORSO.value, 'rows': _ROWS.value, 'calls': calls,
                    'results': results}))
  print(f"{'jit_compile':<12} {'wall ms':>9} {'cpu ms':>9}   ({_TORSO.value}, {_ROWS.value} rows)")
  for r in results:
    print(f"{str(r['jit_compile']):<12} {r['wall_ms']:>9.3f} {r['cpu_ms']:>9.3f}")


if __name__ == '__main__':
  app.run(main)
