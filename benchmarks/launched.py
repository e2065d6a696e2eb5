"""A program as users run it, for the benchmarks that measure one: `python -m
seed_graph.launch.local` on a config (its actors and evaluators as the config has them)
with no end of frames, its progress read from the learner's `metrics.jsonl`."""

import json
import os
import signal
import subprocess
import sys
import time
from typing import Dict, List, Optional, Sequence

import psutil

from benchmarks.node_processes import node_processes
from seed_graph.nodes.learner import metrics as metrics_lib

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
UNBOUNDED_FRAMES = 10_000_000_000_000


def records(logdir: str) -> List[dict]:
  """Every whole record of `<logdir>/metrics.jsonl` so far (a line being written is not)."""
  try:
    with open(os.path.join(logdir, 'metrics.jsonl')) as f:
      lines = f.read().split('\n')[:-1]  # The last piece has no newline yet, or is ''.
  except FileNotFoundError:
    return []
  return [json.loads(line) for line in lines if line.strip()]


class LaunchedProgram:
  """`launch.local` on `config` with `overrides` (KEY=VALUE), writing to `logdir`."""

  def __init__(self, config: str, overrides: Sequence[str], logdir: str):
    self.logdir = logdir
    command = [sys.executable, '-m', 'seed_graph.launch.local', f'--config={config}',
               f'--logdir={logdir}', f'--config.total_environment_frames={UNBOUNDED_FRAMES}',
               *[f'--config.{override}' for override in overrides]]
    with open(os.path.join(logdir, 'launcher.out'), 'w') as output:
      self.process = subprocess.Popen(command, cwd=REPO, stdout=output,
                                      stderr=subprocess.STDOUT)
    self.launcher = psutil.Process(self.process.pid)
    self._window_start = 0

  def wait_for_training(self, seconds: float = 600) -> None:
    """Returns once the learner has recorded a training step; SystemExit if the program
    ends or `seconds` pass first."""
    deadline = time.time() + seconds
    while not (metrics_lib.last_record(self.logdir) or {}).get('learner_steps'):
      if self.process.poll() is not None or time.time() > deadline:
        raise SystemExit(f'error: the program did not train; see {self.logdir}/launcher.out')
      time.sleep(1)

  def nodes(self) -> Dict[str, psutil.Process]:
    """The launcher and every node process, by node name (see `node_processes`)."""
    return node_processes(self.launcher)

  def _signal_all(self, signum: int) -> None:
    # Every process under the launcher, not its process group: the supervisor may start
    # nodes in groups of their own. Children first when stopping, so nothing the launcher
    # watches seems to vanish while it still runs.
    processes = self.launcher.children(recursive=True) + [self.launcher]
    for process in processes if signum == signal.SIGSTOP else processes[::-1]:
      try:
        process.send_signal(signum)
      except psutil.NoSuchProcess:
        pass

  def pause(self) -> None:
    self._signal_all(signal.SIGSTOP)

  def resume(self) -> None:
    self._signal_all(signal.SIGCONT)

  def begin_window(self) -> None:
    """Records written from now on are this window's."""
    self._window_start = len(records(self.logdir))

  def end_window(self) -> Optional[Dict[str, float]]:
    """Frames and learner steps per second between the window's first and last records
    (their `wall_time`, the learner's clock), or None with fewer than two records."""
    window = records(self.logdir)[self._window_start:]
    if len(window) < 2 or window[-1]['wall_time'] <= window[0]['wall_time']:
      return None
    first, last = window[0], window[-1]
    span = last['wall_time'] - first['wall_time']
    return {key: (last[key] - first[key]) / span for key in ('frames', 'learner_steps')}

  def resident_gib(self) -> float:
    total = 0
    for process in self.nodes().values():
      try:
        total += process.memory_info().rss
      except psutil.NoSuchProcess:
        pass
    return total / 2**30

  def stop(self, grace_seconds: float = 120) -> None:
    """Ctrl-C, as a user stops a run (the program saves and exits); killed after
    `grace_seconds`."""
    self.resume()
    if self.process.poll() is None:
      self.process.send_signal(signal.SIGINT)
      try:
        self.process.wait(timeout=grace_seconds)
      except subprocess.TimeoutExpired:
        self.process.kill()
