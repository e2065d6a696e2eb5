"""What the end-to-end comparisons (`revisions`, `versus`) share: a program run until it
has trained for a given time past its start-up, then stopped, and its steady training
rate: the growth of the frames it trained on per second, from the end of its start-up to
its last report.

The window is timed from the end of start-up, not from launch: start-up (imports, the
learner's first trace) takes 10 s on an idle machine and over 30 s on a loaded one, and a
run of fixed length once left a window of a few seconds that held no learner step (a
measured rate of 0)."""

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from typing import Callable, Dict, List, Optional, Sequence

START_UP_LIMIT_SECONDS = 600.0  # Past `skip_seconds`: a program that has not trained by then fails.


def launcher_module(tree: str) -> str:
  """The local launcher of the revision in `tree`: revisions from before `seed_graph.launch`
  existed (neither a folder of the package nor mapped onto `launch/` by setup.py's
  package_dir) name it `launch.local`."""
  with open(os.path.join(tree, 'setup.py')) as f:
    mapped = "'seed_graph.launch': 'launch'" in f.read()
  inside = os.path.isdir(os.path.join(tree, 'seed_graph', 'launch'))
  return 'seed_graph.launch.local' if mapped or inside else 'launch.local'


def config_in_tree(tree: str, config: str) -> str:
  """`config` as the revision in `tree` takes it: a preset's name becomes its file's
  path there (revisions before preset names took paths only, and kept the presets in
  `configs/`); a path (ending in `.py`) is left as it is."""
  if config.endswith('.py'):
    return config
  for folder in ('seed_graph/configs', 'configs'):
    if os.path.isfile(os.path.join(tree, folder, config + '.py')):
      return f'{folder}/{config}.py'
  return config  # The launcher there refuses it in one line.


def steady_rate(points: Sequence[tuple], skip_seconds: float) -> Optional[Dict[str, float]]:
  """(seconds since start, frames, learner steps or None) points -> frames/s (and learner
  steps/s) from the first point at or after `skip_seconds` to the last; None if fewer
  than two such points. Where learner steps are known, start-up also lasts until the
  learner's first step: its first trace can outlast `skip_seconds` on a loaded machine,
  and a window that holds none of the learner's steps measures no training."""
  steady = [p for p in points if p[0] >= skip_seconds and (p[2] is None or p[2] > 0)]
  if len(steady) < 2 or steady[-1][0] <= steady[0][0]:
    return None
  (t0, f0, s0), (t1, f1, s1) = steady[0], steady[-1]
  rate = {'frames_per_second': (f1 - f0) / (t1 - t0), 'seconds': t1 - t0}
  if s0 is not None:
    rate['learner_steps_per_second'] = (s1 - s0) / (t1 - t0)
  return rate


def _wait_for_window(is_running: Callable[[], bool], points: Callable[[], Sequence[tuple]],
                     seconds: float, skip_seconds: float) -> None:
  """Returns once `points()` spans a steady window (`steady_rate`) of `seconds`, the
  program has ended, or start-up has outlasted `skip_seconds` + START_UP_LIMIT_SECONDS."""
  deadline = time.monotonic() + skip_seconds + START_UP_LIMIT_SECONDS + seconds
  while is_running() and time.monotonic() < deadline:
    rate = steady_rate(points(), skip_seconds)
    if rate is not None and rate['seconds'] >= seconds:
      return
    time.sleep(0.5)


def _metrics_points(logdir: str) -> List[tuple]:
  """(wall time, frames, learner steps) of each whole line of `logdir`'s metrics.jsonl."""
  points = []
  try:
    with open(os.path.join(logdir, 'metrics.jsonl')) as metrics:
      for line in metrics:
        try:
          record = json.loads(line)
        except ValueError:
          break  # A line still being written.
        points.append((record['wall_time'], record['frames'], record['learner_steps']))
  except FileNotFoundError:
    pass
  return points


def _fail(what: str, output_path: str, skip_seconds: float, code) -> RuntimeError:
  with open(output_path, errors='replace') as f:
    tail = f.read()[-3000:]
  return RuntimeError(f'{what}: fewer than 2 reports after {skip_seconds:g} s (and, where '
                      f'reported, the first learner step) (exit code {code}); its output '
                      f'ends:\n{tail}')


def run_launcher(tree: str, config: str, logdir: str, seconds: float, skip_seconds: float,
                 flags: Sequence[str] = ()) -> Dict[str, float]:
  """The local launcher of the checkout in `tree` on `config` (a preset's name or a
  path inside it, total frames unbounded) until its `metrics.jsonl` spans `seconds` of
  training past start-up (wall time counts from the learner's start), then Ctrl-C; its
  steady rates from `metrics.jsonl`. Output in `<logdir>.out`."""
  with open(logdir + '.out', 'w') as output:
    launcher = subprocess.Popen(
        [sys.executable, '-m', launcher_module(tree),
         f'--config={config_in_tree(tree, config)}', f'--logdir={logdir}',
         '--config.total_environment_frames=10000000000', *flags],
        cwd=tree, stdout=output, stderr=subprocess.STDOUT)
    try:
      _wait_for_window(lambda: launcher.poll() is None, lambda: _metrics_points(logdir),
                       seconds, skip_seconds)
    finally:  # Also when this is interrupted: no launcher left training.
      _interrupt(launcher, grace_seconds=300)  # The launcher stops its nodes in order.
  rate = steady_rate(_metrics_points(logdir), skip_seconds)
  if rate is None:
    raise _fail(logdir, logdir + '.out', skip_seconds, launcher.returncode)
  return rate


def _interrupt(process: subprocess.Popen, grace_seconds: float, group: bool = False) -> None:
  """SIGINT to `process` (to its process group if `group`), SIGKILL if it has not ended
  `grace_seconds` later; returns once it has ended."""
  def send(signum):
    try:
      if group:
        os.killpg(process.pid, signum)
      else:
        process.send_signal(signum)
    except ProcessLookupError:
      pass  # It has ended.

  send(signal.SIGINT)
  try:
    process.wait(grace_seconds)
  except subprocess.TimeoutExpired:
    send(signal.SIGKILL)
    process.wait()


def _default_sigint():
  # A benchmark started without job control (`nohup ... &` in a script, some CI runners)
  # has SIGINT ignored, which a child inherits across exec: a Python program then never
  # sees the Ctrl-C below and is killed 30 s later. The child gets the default back.
  signal.signal(signal.SIGINT, signal.SIG_DFL)


def run_command(command: List[str], output_path: str, seconds: float, skip_seconds: float,
                line_pattern: str, frames_per_line: int) -> Dict[str, float]:
  r"""Any program, in the directory of `output_path` (where it may leave files), until
  its reports span `seconds` past `skip_seconds` (or this is interrupted), then SIGINT
  (SIGKILL 30 s later); its
  steady rate from the lines of its output
  that match `line_pattern`, timed as they arrive (unbuffered output). A pattern with a
  group reads the program's running total of trained frames from it (Sample Factory:
  `Total num frames: (\d+)`); without, each line counts `frames_per_line` frames
  (CleanRL's `ppo_atari.py` prints `SPS:` once per iteration of 8 environments x 128
  steps x 4 frames)."""
  pattern, points, start = re.compile(line_pattern), [], time.monotonic()
  with open(output_path, 'w') as output:
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, env=dict(os.environ, PYTHONUNBUFFERED='1'),
                               cwd=os.path.dirname(os.path.abspath(output_path)),
                               start_new_session=True, preexec_fn=_default_sigint)

    def read():
      for line in process.stdout:
        output.write(line)
        match = pattern.search(line)
        if match:
          frames = (float(match.group(1)) if pattern.groups
                    else frames_per_line * (len(points) + 1))
          points.append((time.monotonic() - start, frames, None))

    reader = threading.Thread(target=read, daemon=True)
    # The program is stopped whatever ends this, from the moment it exists: a Ctrl-C
    # while the reader started (a wide window on a busy machine) used to leave it running.
    try:
      reader.start()
      _wait_for_window(lambda: process.poll() is None, lambda: list(points), seconds,
                       skip_seconds)
    finally:  # Also when this is interrupted: its own session keeps it from our Ctrl-C.
      _interrupt(process, grace_seconds=30, group=True)
      if reader.is_alive():
        reader.join(10)
  rate = steady_rate(list(points), skip_seconds)
  if rate is None:
    raise _fail(' '.join(command[:3]), output_path, skip_seconds, process.returncode)
  return rate
