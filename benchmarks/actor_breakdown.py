r"""Where an actor's time goes under central inference, and what its environments cost
when the same process steps them alone right after.

  python benchmarks/actor_breakdown.py [--env=atari] [--processes=2] [--env_batch_size=32]
      [--env_groups=2] [--jit_compile=true] [--seconds=15] [--warmup_seconds=10]

Runs the central set-up of `throughput.py` (same flags, tiny policy, training off). Each
actor measures, over `seconds` after the warm-up: the share of wall time it waited for
actions, its process CPU (cores), the share of wall time its main thread spent inside
environment steps, and the thread CPU of one environment step. Then it stops talking
to the learner and steps the same environments with random actions for `seconds` more
(env_only_step_ms): the two step costs are a paired comparison on the same process and
environments. The learner's CPU (cores) is reported over the actors' window. Prints JSON,
then a table.
"""

import json
import multiprocessing
import os
import sys
import threading
import time

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '2')
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from absl import app  # pylint: disable=g-import-not-at-top
import numpy as np
import throughput

_SECONDS = throughput.flags.DEFINE_float('seconds', 15.0,
                                         'Measured seconds of each part (after warm-up).')


def _timed_actor_worker(config, actor_index, address, seconds, warmup, results):
  from seed_graph import envs  # pylint: disable=g-import-not-at-top
  from seed_graph import id_ranges  # pylint: disable=g-import-not-at-top
  from seed_graph.nodes import actor as actor_lib  # pylint: disable=g-import-not-at-top
  from seed_graph.nodes import learner_node  # pylint: disable=g-import-not-at-top

  counters = {'stepping': False, 'measuring': False, 'step_cpu': 0.0, 'steps': 0,
              'wait': 0.0}
  built = []

  build_environment = envs.make_environment

  def make_timed_environment(env_config, seed):
    env = build_environment(env_config, seed)
    untimed_step = env.step

    def step(action):
      started = time.thread_time()
      timestep = untimed_step(action)
      counters['stepping'] = True
      if counters['measuring']:
        counters['step_cpu'] += time.thread_time() - started
        counters['steps'] += 1
      return timestep

    env.step = step
    built.append((env, untimed_step, getattr(env, 'close', lambda: None)))
    env.close = lambda: None  # Kept open for the paired measurement after the actor.
    return env

  class TimedStream:
    def __init__(self, stream):
      self._stream = stream
      self.send, self.close = stream.send, stream.close

    def receive(self):
      started = time.perf_counter()
      response = self._stream.receive()
      if counters['measuring']:
        counters['wait'] += time.perf_counter() - started
      return response

  client = learner_node.LearnerClient('localhost:1', address)
  open_stream = client.inference.open_stream
  client.inference.open_stream = lambda: TimedStream(open_stream())
  envs.make_environment = make_timed_environment  # What the actor builds its envs with.
  stop = threading.Event()
  window = {}

  def measure_window():
    while not counters['stepping']:
      time.sleep(0.05)
    time.sleep(warmup)
    window['start'], window['cpu'] = time.perf_counter(), time.process_time()
    counters['measuring'] = True
    time.sleep(seconds)
    counters['measuring'] = False
    window['elapsed'] = time.perf_counter() - window['start']
    window['process_cpu'] = time.process_time() - window['cpu']
    stop.set()

  threading.Thread(target=measure_window, daemon=True).start()
  actor = actor_lib.Actor(client, config.env, id_ranges.actor_env_ids(config, actor_index),
                          seed=actor_index * 1000, stop_event=stop,
                          env_groups=config.actors.env_groups)
  actor.run()

  # Paired measurement: the same environments, no learner.
  rng = np.random.default_rng(actor_index)
  num_actions = built[0][0].action_spec().num_values
  env_only_cpu, env_only_steps = 0.0, 0
  deadline = time.time() + seconds
  while time.time() < deadline:
    for env, untimed_step, _ in built:
      started = time.thread_time()
      timestep = untimed_step(int(rng.integers(num_actions)))
      env_only_cpu += time.thread_time() - started
      env_only_steps += 1
      if timestep.last():
        env.reset()
  for _, _, close in built:
    close()
  elapsed = window['elapsed']
  results.put({
      'actor': actor_index,
      'wait_fraction': round(counters['wait'] / elapsed, 3),
      'process_cpu_cores': round(window['process_cpu'] / elapsed, 3),
      'env_step_cpu_fraction': round(counters['step_cpu'] / elapsed, 3),
      'central_step_ms': round(1000 * counters['step_cpu'] / max(1, counters['steps']), 3),
      'env_only_step_ms': round(1000 * env_only_cpu / max(1, env_only_steps), 3),
      'steps_per_second': round(counters['steps'] / elapsed, 1),
  })


def main(argv):
  del argv
  multiprocessing.set_start_method('spawn')
  flags = throughput.flags.FLAGS
  config = throughput.benchmark_config(
      flags.env, flags.processes, flags.env_batch_size, flags.env_groups,
      flags.inference_batch_size, flags.inference_timeout_us, flags.jit_compile)
  results = multiprocessing.Queue()
  learner, _, shutdown = throughput.start_central_inference(
      config, _timed_actor_worker, (flags.seconds, flags.warmup_seconds, results))
  time.sleep(flags.warmup_seconds)
  start, start_cpu = time.time(), time.process_time()
  time.sleep(flags.seconds)
  learner_cores = (time.process_time() - start_cpu) / (time.time() - start)
  actors = sorted((results.get() for _ in range(config.actors.num)),
                  key=lambda r: r['actor'])
  shutdown()
  print(json.dumps({'learner_cpu_cores': round(learner_cores, 3), 'actors': actors}))
  print(f"learner cpu cores {learner_cores:.2f}")
  print(f"{'actor':<6} {'wait':>6} {'cpu':>6} {'step cpu':>9} {'central ms/step':>16} "
        f"{'alone ms/step':>14} {'steps/s':>8}")
  for r in actors:
    print(f"{r['actor']:<6} {r['wait_fraction']:>6.2f} {r['process_cpu_cores']:>6.2f} "
          f"{r['env_step_cpu_fraction']:>9.2f} {r['central_step_ms']:>16.3f} "
          f"{r['env_only_step_ms']:>14.3f} {r['steps_per_second']:>8.0f}")


if __name__ == '__main__':
  app.run(main)
