"""What the paired benchmarks share: the env-only baseline (K processes stepping the same
environments as the actors would, random actions chosen in the process, no model
anywhere) and pausing a set-up (SIGSTOP) while the other one is measured."""

import multiprocessing
import os
import time

import numpy as np

from benchmarks import learners


def env_only_worker(env_config, env_batch_size, seed, frames):
  """Steps its environments with random actions forever, adding to `frames`: the actor's
  own `ActorEnvironments` (its `env.backend`, writing the rows a request would carry), with
  no request sent."""
  from seed_graph.nodes import actor  # pylint: disable=g-import-not-at-top
  environments = actor.ActorEnvironments(env_config, np.arange(env_batch_size), seed,
                                        is_eval=False)
  batch = slice(0, env_batch_size)
  frames_per_batch = env_batch_size * environments.frames_per_step
  rng = np.random.default_rng(seed)
  while True:
    environments.step(batch, rng.integers(0, environments.num_actions, env_batch_size))
    with frames.get_lock():
      frames.value += frames_per_batch


def start_env_only(config):
  """K env-only processes, all stepping once this returns, on what the config's actors
  step (`learners.acting_env`: single frames for R2D2).

  Returns (frame counter per process, the processes, shutdown)."""
  env_config = learners.acting_env(config)
  counters = [multiprocessing.Value('q', 0) for _ in range(config.actors.num)]
  workers = start_processes(
      env_only_worker, [(env_config, config.actors.env_batch_size, 1000 * i, counters[i])
                        for i in range(config.actors.num)])
  shutdown = lambda: terminate(workers)

  wait_until(lambda: all(c.value for c in counters), workers, shutdown,
             'the env-only processes did not all start stepping')
  return counters, workers, shutdown


def start_processes(target, args_per_process):
  """One started daemon process of `target(*args)` per entry of `args_per_process`."""
  processes = [multiprocessing.Process(target=target, args=args, daemon=True)
               for args in args_per_process]
  for process in processes:
    process.start()
  return processes


def terminate(processes):
  for process in processes:
    process.terminate()


def wait_until(condition, processes, shutdown, failure: str, seconds: float = 600):
  """Polls `condition()`; if a process dies or `seconds` pass first, calls `shutdown()`
  and raises RuntimeError(failure)."""
  deadline = time.time() + seconds
  while not condition():
    if time.time() > deadline or not all(p.is_alive() for p in processes):
      shutdown()
      raise RuntimeError(failure)
    time.sleep(0.1)


def signal_all(processes, signum):
  for process in processes:
    if process.is_alive():
      os.kill(process.pid, signum)
