"""What the paired benchmarks share: the env-only baseline (K processes stepping the same
environments as the actors would, random actions chosen in the process, no model
anywhere) and pausing a set-up (SIGSTOP) while the other one is measured."""

import multiprocessing
import os
import time

import numpy as np


def env_only_worker(env_config, env_batch_size, seed, frames):
  """Steps its environments (the actors' backend, `env.backend`) with random actions
  forever, adding to `frames`."""
  from seed_graph import env_batches  # pylint: disable=g-import-not-at-top
  batch = slice(0, env_batch_size)
  environments = env_batches.make(env_config, [seed + i for i in range(env_batch_size)],
                                  [batch])
  observations = np.zeros((env_batch_size,) + environments.observation_shape,
                          environments.observation_dtype)
  rewards = np.zeros(env_batch_size, np.float32)
  dones = np.zeros(env_batch_size, bool)
  truncations = np.zeros(env_batch_size, bool)
  frames_per_batch = env_batch_size * environments.frames_per_step
  rng = np.random.default_rng(seed)
  environments.reset(observations)
  while True:
    actions = rng.integers(0, environments.num_actions, env_batch_size)
    environments.step(batch, actions, rewards, dones, truncations, observations)
    with frames.get_lock():
      frames.value += frames_per_batch


def start_env_only(config):
  """K env-only processes, all stepping once this returns.

  Returns (frame counter per process, the processes, shutdown)."""
  counters = [multiprocessing.Value('q', 0) for _ in range(config.actors.num)]
  workers = start_processes(
      env_only_worker, [(config.env, config.actors.env_batch_size, 1000 * i, counters[i])
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
