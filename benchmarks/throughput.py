r"""Throughput of central inference against stepping the environments alone.

  python benchmarks/throughput.py [--env=atari|cartpole] [--processes=2]
      [--env_batch_size=32] [--env_groups=2] [--inference_batch_size=...]
      [--inference_timeout_us=20000] [--seconds=15] [--repeats=3]

Two measurements with the same K processes, each stepping `env_batch_size` environments:
  1. env_only: random actions chosen in the process (no model anywhere);
  2. central_inference: K real actors (`seed_graph.nodes.actor.Actor`, split into
     `env_groups` pipelined groups) sending every observation over the gRPC inference
     stream to a learner-inference node in this process, which batches the requests,
     runs a tiny policy (MLP 32 + LSTM 32), assembles unrolls and hands them to a thread
     that discards them (training switched off).
The two alternate `repeats` times, since a shared machine drifts; the reported ratio is
the median of the per-repeat ratios. Each central round also reports the mean inference
batch and the CPU the learner-inference process used (in cores). Frames count frame skip
(4 on Atari). Prints JSON, then a table.
"""

import json
import multiprocessing
import os
import sys
import threading
import time

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '2')
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from absl import app  # pylint: disable=g-import-not-at-top
from absl import flags
import numpy as np

_ENV = flags.DEFINE_enum('env', 'atari', ['atari', 'cartpole'], 'Environment.')
_PROCESSES = flags.DEFINE_integer('processes', 2, 'K: environment processes.')
_ENV_BATCH = flags.DEFINE_integer('env_batch_size', 32, 'Environments per process.')
_ENV_GROUPS = flags.DEFINE_integer(
    'env_groups', 2, 'Pipelined groups per actor (actors.env_groups): the actor steps one '
    'group while the learner answers the other; 1 waits for every answer before stepping.')
_BATCH = flags.DEFINE_integer(
    'inference_batch_size', None, 'Rows per inference batch; default: one request from '
    'each actor, processes * env_batch_size / env_groups.')
_REPEATS = flags.DEFINE_integer('repeats', 3, 'Alternating env_only/central rounds.')
_SECONDS = flags.DEFINE_float('seconds', 15.0, 'Measured seconds per mode (after warm-up).')
_WARMUP = flags.DEFINE_float('warmup_seconds', 10.0, 'Unmeasured seconds first.')
_TIMEOUT = flags.DEFINE_integer('inference_timeout_us', 20000,
                                'Longest wait of the inference batcher for a full batch.')


def benchmark_config(env_name, processes, env_batch_size, env_groups, inference_batch_size,
                     timeout_us):
  if env_name == 'atari':
    from configs import atari_vtrace as base  # pylint: disable=g-import-not-at-top
  else:
    from configs import cartpole_vtrace as base  # pylint: disable=g-import-not-at-top
  from seed_graph import layout  # pylint: disable=g-import-not-at-top
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
                                 processes * layout.largest_actor_request(config))
  config.inference.timeout_us = timeout_us
  config.learner.unroll_length = 20
  config.learner.batch_size = 1
  config.learner.queue_capacity = 1024
  return config


def _env_only_worker(env_config, env_batch_size, seed, seconds, warmup, results):
  from seed_graph import envs  # pylint: disable=g-import-not-at-top
  environments = [envs.make_environment(env_config, seed + i) for i in range(env_batch_size)]
  num_actions = environments[0].action_spec().num_values
  frames_per_step = environments[0].frames_per_step
  rng = np.random.default_rng(seed)
  for env in environments:
    env.reset()
  steps = 0
  start = time.time()
  measure_from, counted_at = start + warmup, None
  while time.time() < start + warmup + seconds:
    actions = rng.integers(0, num_actions, env_batch_size)
    for env, action in zip(environments, actions):
      if env.step(action).last():
        env.reset()
    if counted_at is None and time.time() >= measure_from:
      counted_at, steps = time.time(), 0
    elif counted_at is not None:
      steps += env_batch_size
  results.put(steps * frames_per_step / (time.time() - counted_at))


def _actor_worker(config, actor_index, address):
  from seed_graph.nodes import actor as actor_lib  # pylint: disable=g-import-not-at-top
  from seed_graph.nodes import learner as learner_lib  # pylint: disable=g-import-not-at-top
  from seed_graph import layout  # pylint: disable=g-import-not-at-top
  client = learner_lib.LearnerClient('localhost:1', address)
  stop = threading.Event()
  actor_lib.Actor(client, config.env, layout.actor_env_ids(config, actor_index),
                  seed=actor_index * 1000, stop_event=stop,
                  env_groups=config.actors.env_groups).run()


def measure_env_only(config, seconds, warmup):
  results = multiprocessing.Queue()
  workers = [multiprocessing.Process(
      target=_env_only_worker,
      args=(config.env, config.actors.env_batch_size, 1000 * i, seconds, warmup, results))
             for i in range(config.actors.num)]
  for w in workers:
    w.start()
  total = sum(results.get() for _ in workers)
  for w in workers:
    w.join()
  return total


def start_central_inference(config, actor_worker=_actor_worker, extra_args=()):
  """A learner-inference node in this process (training off: a thread discards its
  unrolls) and K actor processes running `actor_worker(config, index, address,
  *extra_args)`. Returns once every environment has stepped: building dozens of Atari
  environments per actor can outlast a warm-up, and env_only's warm-up also starts after
  its environments are built. Returns (learner, shutdown)."""
  import portpicker  # pylint: disable=g-import-not-at-top
  from seed_graph.nodes import learner as learner_lib  # pylint: disable=g-import-not-at-top
  learner = learner_lib.LearnerInference(config)
  port = portpicker.pick_unused_port()
  learner._start_inference(port)  # pylint: disable=protected-access
  stop = threading.Event()

  def discard_unrolls():
    while not stop.is_set():
      try:
        learner._unrolls.get(timeout=0.2)  # pylint: disable=protected-access
      except Exception:  # pylint: disable=broad-except
        pass

  threading.Thread(target=discard_unrolls, daemon=True).start()
  actors = [multiprocessing.Process(target=actor_worker,
                                    args=(config, i, f'localhost:{port}') + tuple(extra_args),
                                    daemon=True)
            for i in range(config.actors.num)]
  for a in actors:
    a.start()

  def shutdown():
    for a in actors:
      a.terminate()
    stop.set()
    learner._shutdown_inference()  # pylint: disable=protected-access

  deadline = time.time() + 600
  while not (learner._env_states.run_ids != 0).all():  # pylint: disable=protected-access
    if time.time() > deadline or not all(a.is_alive() for a in actors):
      shutdown()
      raise RuntimeError('the actors did not all start stepping')
    time.sleep(0.1)
  return learner, shutdown


def measure_central_inference(config, seconds, warmup):
  learner, shutdown = start_central_inference(config)
  time.sleep(warmup)
  start_frames, start = learner.get_stats()['frames'], time.time()
  start_cpu = time.process_time()
  time.sleep(seconds)
  stats = learner.get_stats()
  elapsed = time.time() - start
  fps = (stats['frames'] - start_frames) / elapsed
  learner_cores = (time.process_time() - start_cpu) / elapsed
  batches = stats['inference_batches']
  mean_batch = stats['inference_rows'] / batches if batches else 0
  shutdown()
  return fps, mean_batch, learner_cores


def main(argv):
  del argv
  multiprocessing.set_start_method('spawn')
  config = benchmark_config(_ENV.value, _PROCESSES.value, _ENV_BATCH.value,
                            _ENV_GROUPS.value, _BATCH.value, _TIMEOUT.value)
  rounds = []
  for _ in range(_REPEATS.value):
    env_only = measure_env_only(config, _SECONDS.value, _WARMUP.value)
    central, mean_batch, learner_cores = measure_central_inference(
        config, _SECONDS.value, _WARMUP.value)
    rounds.append({'env_only_frames_per_second': round(env_only, 1),
                   'central_inference_frames_per_second': round(central, 1),
                   'ratio': round(central / env_only, 3),
                   'mean_inference_batch_rows': round(mean_batch, 1),
                   'learner_cpu_cores': round(learner_cores, 2)})
  median = lambda key: float(np.median([r[key] for r in rounds]))
  result = {
      'env': _ENV.value if _ENV.value != 'atari' else f'atari/{config.env.game}',
      'processes': _PROCESSES.value,
      'env_batch_size': _ENV_BATCH.value,
      'env_groups': _ENV_GROUPS.value,
      'inference_batch_size': config.inference.batch_size,
      'inference_timeout_us': _TIMEOUT.value,
      'cpu_count': os.cpu_count(),
      'env_only_frames_per_second': median('env_only_frames_per_second'),
      'central_inference_frames_per_second': median('central_inference_frames_per_second'),
      'ratio': median('ratio'),
      'rounds': rounds,
  }
  print(json.dumps(result))
  print(f"{'round':<8} {'env_only':>12} {'central':>12} {'ratio':>7} {'batch rows':>11} "
        f"{'learner cores':>14}")
  for i, r in enumerate(rounds):
    print(f"{i + 1:<8} {r['env_only_frames_per_second']:>12.0f} "
          f"{r['central_inference_frames_per_second']:>12.0f} {r['ratio']:>7.3f} "
          f"{r['mean_inference_batch_rows']:>11.1f} {r['learner_cpu_cores']:>14.2f}")
  print(f"median ratio {result['ratio']:.3f} (frames/s; K={_PROCESSES.value} processes x "
        f"{_ENV_BATCH.value} envs in {_ENV_GROUPS.value} groups, "
        f"{os.cpu_count()} cores)")


if __name__ == '__main__':
  app.run(main)
