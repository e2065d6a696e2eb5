r"""End-to-end training speed: a whole program training, against the environments alone.

  python -m benchmarks.end_to_end --config=atari_vtrace_fast \
      [--pairs=6] [--window_seconds=20] [--warmup_seconds=60] [--config.KEY=VALUE ...]

A smoke run (seconds): `--config=cartpole_vtrace --pairs=1 --window_seconds=1
--warmup_seconds=0 --config.actors.num=1`.

Two set-ups with the config's `actors.num` processes of `actors.env_batch_size`
environments each (evaluators off), stepping what the program's actors step (single
frames for R2D2, whose learner stacks them):
  1. training: the learner (V-trace or R2D2, with an in-process Reverb server for R2D2)
     in its own process, training, and real actor processes on its inference edge;
  2. env_only: the same environments stepped with random actions, no model anywhere.
Both start once and stay up; the idle one is paused (SIGSTOP, learner included). After
`warmup_seconds` of training (the first training steps, traces and queue filling are
not steady state) the two alternate in windows of `window_seconds`. Training frames/s
counts the frames the learner received (frame skip included), which is what it trains
on; reported: the medians of training frames/s, env-only frames/s, their per-pair ratio,
learner steps/s, and the resident memory of every training process. Prints JSON, then
a table.
"""

import json
import multiprocessing
import os
import shutil
import signal
import tempfile
import threading
import time

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '2')

from absl import app  # pylint: disable=g-import-not-at-top
from absl import flags
import numpy as np
import psutil

from benchmarks import learners
from benchmarks import paired
from seed_graph.launch.runs import tensorflow_environment

_CONFIG = flags.DEFINE_string('config', None, 'Experiment config, a preset\'s name or a .py '
                              'file (overridden by --config.KEY=VALUE).')
_PAIRS = flags.DEFINE_integer('pairs', 6, 'Alternating training/env_only window pairs.')
_WINDOW = flags.DEFINE_float('window_seconds', 20.0, 'Measured seconds per window.')
_SETTLE = flags.DEFINE_float('settle_seconds', 1.0, 'Unmeasured seconds after a switch.')
_WARMUP = flags.DEFINE_float('warmup_seconds', 60.0,
                             'Unmeasured seconds of training before the first pair.')
flags.mark_flags_as_required(['config'])
_OVERRIDES = []  # The KEY=VALUE of every --config.KEY=VALUE, in order.


def _learner_process(config, port, counters, ready):
  """Runs the learner (training) and publishes its counters for the parent."""
  # R2D2's replay server (`_replay`) must stay referenced while the learner runs.
  learner, _replay = learners.build_learner(config, inference_port=port)

  def publish():
    while True:
      stats = learner.get_stats()
      counters['frames'].value = stats['frames']
      counters['learner_steps'].value = stats['learner_steps']
      time.sleep(0.1)

  threading.Thread(target=publish, daemon=True).start()
  ready.set()
  learner.run()


def _actor_process(config, env_config, actor_index, address):
  from seed_graph.config import id_ranges  # pylint: disable=g-import-not-at-top
  from seed_graph.nodes import actor as actor_lib  # pylint: disable=g-import-not-at-top
  # pylint: disable-next=g-import-not-at-top
  from seed_graph.nodes.learner import client as learner_client
  client = learner_client.LearnerClient('localhost:1', address)
  actor_lib.Actor(client, env_config, id_ranges.actor_env_ids(config, actor_index),
                  seed=config.seed + 1000 * (actor_index + 1), stop_event=threading.Event(),
                  env_groups=config.actors.env_groups).run()


def start_training(config):
  """The learner process and the actor processes; returns (processes, counters)."""
  import portpicker  # pylint: disable=g-import-not-at-top
  port = portpicker.pick_unused_port()
  counters = {'frames': multiprocessing.Value('q', 0, lock=False),
              'learner_steps': multiprocessing.Value('q', 0, lock=False)}
  ready = multiprocessing.Event()
  learner = multiprocessing.Process(target=_learner_process,
                                    args=(config, port, counters, ready), daemon=True)
  learner.start()
  ready.wait(600)
  env_config = learners.acting_env(config)
  actors = paired.start_processes(
      _actor_process, [(config, env_config, i, f'localhost:{port}')
                       for i in range(config.actors.num)])
  return [learner] + actors, counters


def _resident_gib(processes):
  return sum(psutil.Process(p.pid).memory_info().rss for p in processes) / 2**30


def measure(config, pairs, window, settle, warmup):
  env_counters, env_workers, stop_env_only = paired.start_env_only(config)
  paired.signal_all(env_workers, signal.SIGSTOP)
  training, counters = start_training(config)
  env_frames = lambda: sum(c.value for c in env_counters)

  def run_window(run, pause, read):
    paired.signal_all(pause, signal.SIGSTOP)
    paired.signal_all(run, signal.SIGCONT)
    time.sleep(settle)
    before, start = read(), time.time()
    time.sleep(window)
    after, elapsed = read(), time.time() - start
    return [(a - b) / elapsed for a, b in zip(after, before)]

  train_read = lambda: (counters['frames'].value, counters['learner_steps'].value)
  results, peak_gib = [], 0.0
  try:
    paired.wait_until(lambda: counters['learner_steps'].value >= 1, training, lambda: None,
                      'the program died before its first training step', seconds=1800)
    time.sleep(warmup)
    for pair in range(pairs):
      windows = [('training', training, env_workers, train_read),
                 ('env_only', env_workers, training, lambda: (env_frames(),))]
      measured = {}
      for name, run, pause, read in (windows if pair % 2 else windows[::-1]):
        measured[name] = run_window(run, pause, read)
        if name == 'training':
          peak_gib = max(peak_gib, _resident_gib(training))
      (train_fps, steps_per_second), (env_fps,) = measured['training'], measured['env_only']
      results.append({'training_frames_per_second': round(train_fps, 1),
                      'env_only_frames_per_second': round(env_fps, 1),
                      'ratio': round(train_fps / env_fps, 3),
                      'learner_steps_per_second': round(steps_per_second, 3)})
  finally:
    paired.signal_all(env_workers + training, signal.SIGCONT)
    paired.terminate(training)
    stop_env_only()
  return results, peak_gib


def main(argv):
  del argv
  multiprocessing.set_start_method('spawn')
  config = learners.load_config(_CONFIG.value, _OVERRIDES)
  config.logdir = tempfile.mkdtemp(prefix='seed_graph_end_to_end_')
  config.evaluators.num = 0
  # As seed_graph/launch/local.py: the processes started below import TensorFlow with
  # these set.
  tensorflow_environment.set_for_nodes(config.onednn)
  try:
    pairs, peak_gib = measure(config, _PAIRS.value, _WINDOW.value, _SETTLE.value,
                              _WARMUP.value)
  finally:
    shutil.rmtree(config.logdir, ignore_errors=True)
  median = lambda key: float(np.median([p[key] for p in pairs]))
  result = {key: median(key) for key in pairs[0]}
  result.update(config=_CONFIG.value, overrides=_OVERRIDES, algorithm=config.algorithm,
                torso=config.network.torso, actors=config.actors.num,
                env_batch_size=config.actors.env_batch_size, cpu_count=os.cpu_count(),
                onednn=config.onednn,
                training_processes_peak_rss_gib=round(peak_gib, 2), pairs=pairs)
  print(json.dumps(result))
  print(f"{'pair':<5} {'training':>9} {'env_only':>9} {'ratio':>6} {'steps/s':>8}")
  for i, p in enumerate(pairs):
    print(f"{i + 1:<5} {p['training_frames_per_second']:>9.0f} "
          f"{p['env_only_frames_per_second']:>9.0f} {p['ratio']:>6.3f} "
          f"{p['learner_steps_per_second']:>8.3f}")
  print(f"median: training {result['training_frames_per_second']:.0f} frames/s, env-only "
        f"{result['env_only_frames_per_second']:.0f}, ratio {result['ratio']:.3f}, "
        f"{result['learner_steps_per_second']:.3f} learner steps/s; training processes "
        f"{peak_gib:.2f} GiB resident at most ({config.actors.num} actors x "
        f"{config.actors.env_batch_size} envs, {os.cpu_count()} cores)")


if __name__ == '__main__':
  # Not at the top: spawned processes import this module again, and this loads TensorFlow.
  from seed_graph.launch.runs import config_args  # pylint: disable=g-import-not-at-top
  app.run(main, flags_parser=config_args.flags_parser(_OVERRIDES))
