r"""Throughput of central inference against stepping the environments alone.

  python -m benchmarks.throughput [--env=atari|cartpole] [--processes=2]
      [--env_batch_size=32] [--env_groups=2] [--inference_batch_size=...]
      [--inference_timeout_us=5000] [--jit_compile=true] [--pairs=30]
      [--window_seconds=3]

A smoke run (seconds): `--env=cartpole --processes=1 --env_batch_size=4 --env_groups=1
--pairs=1 --window_seconds=1 --warmup_seconds=0.5`.

Two set-ups with the same K processes, each stepping `env_batch_size` environments:
  1. env_only: random actions chosen in the process (no model anywhere);
  2. central_inference: K real actors (`seed_graph.nodes.actor.Actor`, split into
     `env_groups` pipelined groups) sending every observation over the gRPC inference
     stream to a learner-inference node in this process, which batches the requests,
     runs a tiny policy (MLP 32 + LSTM 32, as one XLA program unless
     `--jit_compile=false`), assembles unrolls and hands them to a thread that discards
     them (training switched off).
Both set-ups are started once and stay up; the script pauses one (SIGSTOP) while it
measures the other, and alternates `pairs` times in windows of `window_seconds` (after
a short settle). This shared machine's speed drifts by tens of percent within seconds,
so short alternating windows compare the two modes under the same conditions; the
reported ratio is the median of the per-pair ratios, with its quartiles. Each central
window also reports the mean inference batch and the CPU the learner-inference process
used (in cores). Frames count frame skip (4 on Atari). Prints JSON, then a table.
"""

import json
import multiprocessing
import os
import signal
import threading
import time

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '2')

from absl import app  # pylint: disable=g-import-not-at-top
from absl import flags
import numpy as np

from benchmarks import paired

_ENV = flags.DEFINE_enum('env', 'atari', ['atari', 'cartpole'], 'Environment.')
_PROCESSES = flags.DEFINE_integer('processes', 2, 'K: environment processes.')
_ENV_BATCH = flags.DEFINE_integer('env_batch_size', 32, 'Environments per process.')
_ENV_GROUPS = flags.DEFINE_integer(
    'env_groups', 2, 'Pipelined groups per actor (actors.env_groups): the actor steps one '
    'group while the learner answers the other; 1 waits for every answer before stepping.')
_BATCH = flags.DEFINE_integer(
    'inference_batch_size', None, 'Rows per inference batch; default: one request from '
    'each actor, processes * env_batch_size / env_groups.')
_PAIRS = flags.DEFINE_integer('pairs', 30, 'Alternating env_only/central window pairs.')
_WINDOW = flags.DEFINE_float('window_seconds', 3.0, 'Measured seconds per window.')
_SETTLE = flags.DEFINE_float('settle_seconds', 0.5,
                             'Unmeasured seconds after each switch of mode.')
_WARMUP = flags.DEFINE_float('warmup_seconds', 10.0,
                             'Unmeasured seconds of each mode before the first pair.')
_JIT = flags.DEFINE_bool('jit_compile', True,
                         'Run the tiny policy as one XLA program (inference.jit_compile).')
_TIMEOUT = flags.DEFINE_integer('inference_timeout_us', 5000,
                                'Longest wait of the inference batcher for a full batch.')


def benchmark_config(env_name, processes, env_batch_size, env_groups, inference_batch_size,
                     timeout_us, jit_compile=True):
  if env_name == 'atari':
    from seed_graph.configs import atari_vtrace as base  # pylint: disable=g-import-not-at-top
  else:
    from seed_graph.configs import cartpole_vtrace as base  # pylint: disable=g-import-not-at-top
  from seed_graph.config import id_ranges  # pylint: disable=g-import-not-at-top
  config = base.get_config()
  config.logdir = '/tmp/seed_graph_benchmark_unused'
  config.network.torso = 'mlp'
  config.network.mlp_sizes = (32,)
  config.network.lstm_size = 32
  config.actors.num = processes
  config.actors.env_batch_size = env_batch_size
  config.actors.env_groups = env_groups
  config.evaluators.num = 0
  config.inference.batch_size = (inference_batch_size or
                                 processes * id_ranges.largest_actor_request(config))
  config.inference.timeout_us = timeout_us
  config.inference.jit_compile = jit_compile
  config.learner.unroll_length = 20
  config.learner.batch_size = 1
  config.learner.queue_capacity = 1024
  return config


def _actor_worker(config, actor_index, address):
  from seed_graph.nodes import actor as actor_lib  # pylint: disable=g-import-not-at-top
  # pylint: disable-next=g-import-not-at-top
  from seed_graph.nodes.learner import client as learner_client
  from seed_graph.config import id_ranges  # pylint: disable=g-import-not-at-top
  client = learner_client.LearnerClient('localhost:1', address)
  stop = threading.Event()
  actor_lib.Actor(client, config.env, id_ranges.actor_env_ids(config, actor_index),
                  seed=actor_index * 1000, stop_event=stop,
                  env_groups=config.actors.env_groups).run()


def start_central_inference(config, actor_worker=_actor_worker, extra_args=()):
  """A learner-inference node in this process (training off: a thread discards its
  unrolls) and K actor processes running `actor_worker(config, index, address,
  *extra_args)`. Returns once every environment has stepped: building dozens of Atari
  environments per actor can outlast a warm-up, and env_only's warm-up also starts after
  its environments are built. Returns (learner, actor processes, shutdown)."""
  import portpicker  # pylint: disable=g-import-not-at-top
  from seed_graph.config import id_ranges  # pylint: disable=g-import-not-at-top
  from seed_graph.nodes.learner import shell as learner_lib  # pylint: disable=g-import-not-at-top
  from seed_graph.programs import registry  # pylint: disable=g-import-not-at-top
  learner = learner_lib.Learner(config, registry.algorithm_builder(config).algorithm)
  port = portpicker.pick_unused_port()
  learner.serve(port)
  stop = threading.Event()

  def discard_unrolls():
    while not stop.is_set():
      try:
        learner.algorithm.unroll_queue.get(timeout=0.2)
      except Exception:  # pylint: disable=broad-except
        pass

  threading.Thread(target=discard_unrolls, daemon=True).start()
  actors = paired.start_processes(
      actor_worker, [(config, i, f'localhost:{port}') + tuple(extra_args)
                     for i in range(config.actors.num)])

  def shutdown():
    paired.terminate(actors)
    stop.set()
    learner.shutdown()

  paired.wait_until(
      lambda: learner.get_stats()['environments_seen'] >= id_ranges.num_training_envs(config),
      actors, shutdown, 'the actors did not all start stepping')
  return learner, actors, shutdown


def _pair(pair, env_only_window, central_window):
  """One env-only and one central window, the first of them alternating with `pair` so
  that neither mode always follows the other."""
  if pair % 2:
    central, mean_batch, learner_cores = central_window()
    env_only, idle_learner_cores = env_only_window()
  else:
    env_only, idle_learner_cores = env_only_window()
    central, mean_batch, learner_cores = central_window()
  return {'env_only_frames_per_second': round(env_only, 1),
          'central_inference_frames_per_second': round(central, 1),
          'ratio': round(central / env_only, 3),
          'mean_inference_batch_rows': round(mean_batch, 1),
          'learner_cpu_cores': round(learner_cores, 2),
          'paused_learner_cpu_cores': round(idle_learner_cores, 3)}


def measure_pairs(config, pairs, window, settle, warmup):
  """Alternates env-only and central windows (see the module docstring); one dict per
  pair. Both set-ups are up throughout; the idle one is stopped with SIGSTOP."""
  env_counters, env_workers, stop_env_only = paired.start_env_only(config)
  paired.signal_all(env_workers, signal.SIGSTOP)
  try:
    learner, actors, stop_central = start_central_inference(config)
  except BaseException:
    paired.signal_all(env_workers, signal.SIGCONT)
    stop_env_only()
    raise
  env_frames = lambda: sum(c.value for c in env_counters)

  def switch(run, pause):
    paired.signal_all(pause, signal.SIGSTOP)
    paired.signal_all(run, signal.SIGCONT)
    time.sleep(settle)

  def env_only_window():
    switch(run=env_workers, pause=actors)
    start_frames, start, start_cpu = env_frames(), time.time(), time.process_time()
    time.sleep(window)
    elapsed = time.time() - start
    # The idle learner's CPU, which env_only pays for: it should be close to zero.
    return (env_frames() - start_frames) / elapsed, (time.process_time() - start_cpu) / elapsed

  def central_window():
    switch(run=actors, pause=env_workers)
    before, start, start_cpu = learner.get_stats(), time.time(), time.process_time()
    time.sleep(window)
    after, elapsed = learner.get_stats(), time.time() - start
    batches = after['inference_batches'] - before['inference_batches']
    rows = after['inference_rows'] - before['inference_rows']
    return ((after['frames'] - before['frames']) / elapsed, rows / batches if batches else 0,
            (time.process_time() - start_cpu) / elapsed)

  results = []
  try:
    switch(run=actors, pause=env_workers)
    time.sleep(warmup)
    switch(run=env_workers, pause=actors)
    time.sleep(warmup)
    for pair in range(pairs):
      results.append(_pair(pair, env_only_window, central_window))
  finally:
    # Stopped processes would not act on SIGTERM; wake them first.
    paired.signal_all(env_workers + actors, signal.SIGCONT)
    stop_env_only()
    stop_central()
  return results


def main(argv):
  del argv
  multiprocessing.set_start_method('spawn')
  config = benchmark_config(_ENV.value, _PROCESSES.value, _ENV_BATCH.value,
                            _ENV_GROUPS.value, _BATCH.value, _TIMEOUT.value, _JIT.value)
  pairs = measure_pairs(config, _PAIRS.value, _WINDOW.value, _SETTLE.value, _WARMUP.value)
  column = lambda key: [p[key] for p in pairs]
  median = lambda key: float(np.median(column(key)))
  quartiles = [round(float(q), 3) for q in np.percentile(column('ratio'), [25, 75])]
  result = {
      'env': _ENV.value if _ENV.value != 'atari' else f'atari/{config.env.game}',
      'processes': _PROCESSES.value,
      'env_batch_size': _ENV_BATCH.value,
      'env_groups': _ENV_GROUPS.value,
      'inference_batch_size': config.inference.batch_size,
      'inference_timeout_us': _TIMEOUT.value,
      'jit_compile': _JIT.value,
      'window_seconds': _WINDOW.value,
      'cpu_count': os.cpu_count(),
      'env_only_frames_per_second': median('env_only_frames_per_second'),
      'central_inference_frames_per_second': median('central_inference_frames_per_second'),
      'learner_cpu_cores': median('learner_cpu_cores'),
      'paused_learner_cpu_cores': median('paused_learner_cpu_cores'),
      'ratio': median('ratio'),
      'ratio_quartiles': quartiles,
      'pairs': pairs,
  }
  print(json.dumps(result))
  print(f"{'pair':<6} {'env_only':>10} {'central':>10} {'ratio':>7} {'batch rows':>11} "
        f"{'learner cores':>14}")
  for i, p in enumerate(pairs):
    print(f"{i + 1:<6} {p['env_only_frames_per_second']:>10.0f} "
          f"{p['central_inference_frames_per_second']:>10.0f} {p['ratio']:>7.3f} "
          f"{p['mean_inference_batch_rows']:>11.1f} {p['learner_cpu_cores']:>14.2f}")
  print(f"median ratio {result['ratio']:.3f} (quartiles {quartiles[0]:.3f}-{quartiles[1]:.3f}; "
        f"medians: env_only {result['env_only_frames_per_second']:.0f}, central "
        f"{result['central_inference_frames_per_second']:.0f} frames/s, learner "
        f"{result['learner_cpu_cores']:.2f} cores ({result['paused_learner_cpu_cores']:.3f} "
        f"while env_only ran); K={_PROCESSES.value} processes x "
        f"{_ENV_BATCH.value} envs in {_ENV_GROUPS.value} groups, {os.cpu_count()} cores)")


if __name__ == '__main__':
  app.run(main)
