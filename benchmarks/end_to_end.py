r"""End-to-end training speed: a whole program training, against the environments alone.

  python -m benchmarks.end_to_end --config=atari_vtrace_fast \
      [--pairs=6] [--window_seconds=20] [--warmup_seconds=60] [--launched] \
      [--config.KEY=VALUE ...]

A smoke run (seconds): `--config=cartpole_vtrace --pairs=1 --window_seconds=1
--warmup_seconds=0 --config.actors.num=1`.

Two set-ups, stepping what the program's actors step (single frames for R2D2, whose
learner stacks them) in the config's `actors.num` processes of `actors.env_batch_size`
environments each:
  1. training: the learner (V-trace or R2D2, with an in-process Reverb server for R2D2)
     in its own process, training, and real actor processes on its inference edge,
     evaluators off; or with `--launched`, the program as users run it (`launch.local`
     with the config's evaluators, launcher, metrics and checkpoints), its progress read
     from the learner's metrics records (so a window must hold at least two:
     `--window_seconds` of 3 x `logging.interval_seconds` or more, 90 for the Atari
     presets' 30 s);
  2. env_only: the same environments stepped with random actions, no model anywhere.
Both start once and stay up; the idle one is paused (SIGSTOP, every process of it). After
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
import sys
import tempfile
import threading
import time

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '2')

from absl import app  # pylint: disable=g-import-not-at-top
from absl import flags
import numpy as np
import psutil

from benchmarks import launched
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
_LAUNCHED = flags.DEFINE_bool(
    'launched', False, 'Train through `python -m seed_graph.launch.local` as users do, '
    'evaluators as the config has them, instead of the benchmark\'s own learner and actors.')
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


class _Counted:
  """A set-up measured by counters it keeps in shared memory: pause, resume, and the
  counters' rates over a window."""

  def __init__(self, processes, read):
    self.processes, self._read, self._start = processes, read, None

  def pause(self):
    paired.signal_all(self.processes, signal.SIGSTOP)

  def resume(self):
    paired.signal_all(self.processes, signal.SIGCONT)

  def begin_window(self):
    self._start = (time.time(), self._read())

  def end_window(self):
    start, before = self._start
    elapsed, after = time.time() - start, self._read()
    return {key: (after[key] - before[key]) / elapsed for key in after}


class _OwnTraining(_Counted):
  """This benchmark's learner process and actor processes, no evaluator."""

  def __init__(self, config):
    processes, counters = start_training(config)
    super().__init__(processes, lambda: {key: c.value for key, c in counters.items()})
    self._counters = counters

  def wait_for_training(self):
    paired.wait_until(lambda: self._counters['learner_steps'].value >= 1, self.processes,
                      lambda: None, 'the program died before its first training step',
                      seconds=1800)

  def resident_gib(self):
    return sum(psutil.Process(p.pid).memory_info().rss for p in self.processes) / 2**30

  def stop(self):
    self.resume()
    paired.terminate(self.processes)


def _start_training(config):
  """The training set-up: `launch.local` as the config has it (`--launched`), or this
  benchmark's own learner and actors."""
  if not _LAUNCHED.value:
    return _OwnTraining(config)
  return launched.LaunchedProgram(_CONFIG.value, _OVERRIDES, config.logdir)


def _window(run, pause, settle, window):
  """Rates of `run` over one window, `pause` stopped meanwhile."""
  pause.pause()
  run.resume()
  time.sleep(settle)
  run.begin_window()
  time.sleep(window)
  rates = run.end_window()
  if rates is None:
    raise SystemExit(f'error: fewer than two metrics records in a {window:g}-s window')
  return rates


def measure(config, pairs, window, settle, warmup):
  env_counters, env_workers, stop_env_only = paired.start_env_only(config)
  env_only = _Counted(env_workers, lambda: {'frames': sum(c.value for c in env_counters)})
  env_only.pause()
  training = _start_training(config)
  results, peak_gib = [], 0.0
  try:
    training.wait_for_training()
    time.sleep(warmup)
    for pair in range(pairs):
      order = [('training', training, env_only), ('env_only', env_only, training)]
      measured = {}
      for name, run, pause in (order if pair % 2 else order[::-1]):
        measured[name] = _window(run, pause, settle, window)
        if name == 'training':
          peak_gib = max(peak_gib, training.resident_gib())
      train, env_fps = measured['training'], measured['env_only']['frames']
      results.append({'training_frames_per_second': round(train['frames'], 1),
                      'env_only_frames_per_second': round(env_fps, 1),
                      'ratio': round(train['frames'] / env_fps, 3),
                      'learner_steps_per_second': round(train['learner_steps'], 3)})
  finally:
    env_only.resume()
    training.stop()
    stop_env_only()
  return results, peak_gib


def main(argv):
  del argv
  multiprocessing.set_start_method('spawn')
  config = learners.load_config(_CONFIG.value, _OVERRIDES)
  if _LAUNCHED.value and _WINDOW.value < 3 * config.logging.interval_seconds:
    raise app.UsageError(
        f'--launched reads the metrics records, one every logging.interval_seconds '
        f'({config.logging.interval_seconds:g} s): give --window_seconds of at least '
        f'{3 * config.logging.interval_seconds:g}')
  # SIGTERM ends the benchmark as Ctrl-C does: what it started is stopped (`finally`).
  signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
  config.logdir = tempfile.mkdtemp(prefix='seed_graph_end_to_end_')
  if not _LAUNCHED.value:
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
  result.update(config=_CONFIG.value, overrides=_OVERRIDES, launched=_LAUNCHED.value,
                algorithm=config.algorithm, torso=config.network.torso,
                actors=config.actors.num, evaluators=config.evaluators.num,
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
