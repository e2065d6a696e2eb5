"""Shared helpers of the tests: small configs and subprocess launches."""

import importlib
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Command-line overrides that make the CartPole programs small and quick to start.
SMALL_VTRACE_FLAGS = [
    '--config.actors.env_batch_size=4', '--config.evaluators.env_batch_size=2',
    '--config.learner.batch_size=4', '--config.learner.unroll_length=10',
    '--config.logging.interval_seconds=1']
SMALL_R2D2_FLAGS = [
    '--config.actors.env_batch_size=4', '--config.evaluators.env_batch_size=2',
    '--config.inference.batch_size=16', '--config.learner.batch_size=8',
    '--config.learner.burn_in=4', '--config.learner.unroll_length=8',
    '--config.replay.capacity=150', '--config.replay.min_size_to_sample=16',
    '--config.replay.samples_per_insert=2.0', '--config.replay.error_buffer=64.0',
    '--config.replay.chunk_length=4', '--config.logging.interval_seconds=1']


def needs(module: str):
  """Imports an optional dependency a test needs. Setup installs EnvPool and Football
  on Python 3.10, the actors' Python, where a missing one fails the test. The 3.8 venv is
  the TPU VM learner host's, which steps no environments and has neither: there the
  test is skipped, and scripts/test.sh runs every unit file that calls this on 3.10 too."""
  if sys.version_info >= (3, 10):
    return importlib.import_module(module)
  return pytest.importorskip(module, reason=f'{module}: not on the learner host\'s Python')


def small_cartpole_config(logdir_path, **overrides):
  from seed_graph.configs import cartpole_vtrace  # pylint: disable=g-import-not-at-top
  config = cartpole_vtrace.get_config()
  config.logdir = str(logdir_path)
  config.actors.num = 2
  config.actors.env_batch_size = 4
  config.evaluators.num = 1
  config.evaluators.env_batch_size = 2
  config.inference.batch_size = 16
  config.learner.batch_size = 4
  config.learner.unroll_length = 5
  config.learner.queue_capacity = 8
  config.logging.interval_seconds = 1.0
  for dotted, value in overrides.items():
    section = config
    *parents, leaf = dotted.split('.')
    for part in parents:
      section = section[part]
    section[leaf] = value
  return config


def launch_command(logdir, *flags, config='cartpole_vtrace'):
  return [sys.executable, '-m', 'seed_graph.launch.local', f'--config={config}',
          f'--logdir={logdir}', *flags]


def run_launch(logdir, *flags, timeout=300, env=None, config='cartpole_vtrace'):
  return subprocess.run(launch_command(logdir, *flags, config=config), cwd=REPO,
                        capture_output=True, text=True, timeout=timeout,
                        env=dict(os.environ, **(env or {})))


def train_to_the_end(logdir, *flags, config, timeout=600) -> dict:
  """Runs `launch.local` with `flags` until it ends; requires a clean exit (else shows
  the output's tails) and returns the last metrics record."""
  result = run_launch(logdir, *flags, config=config, timeout=timeout)
  assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
  return read_metrics(logdir)[-1]


def train_until_return(logdir, target: float, frame_budget: int, *flags,
                       config='cartpole_vtrace', timeout=900,
                       learner_logdirs=None, console=None):
  """Launches `config` (plus `flags`) until the mean training return of a learner
  reaches `target` within `frame_budget` of its frames, then stops it with Ctrl-C (the
  learners save); returns (the first metrics record at the target or None, the best
  (return, frames) seen). `learner_logdirs`: where the learners write their metrics
  (default: `logdir`); `console`: a file for the launcher's console (default: none).
  Requires the launcher to exit cleanly."""
  with open(console or os.devnull, 'wb') as console_file:
    launcher = subprocess.Popen(launch_command(logdir, *flags, config=config), cwd=REPO,
                                stdout=console_file, stderr=subprocess.STDOUT,
                                start_new_session=True)
  learner_logdirs = learner_logdirs or [logdir]
  reached = None
  try:
    deadline = time.time() + timeout
    while time.time() < deadline and launcher.poll() is None and reached is None:
      time.sleep(2.0)
      reached = next((m for d in learner_logdirs for m in read_metrics(d)
                      if m['frames'] <= frame_budget + 1_000
                      and (m.get('episode_return') or 0.0) >= target), None)
  finally:
    if launcher.poll() is None:
      os.killpg(launcher.pid, signal.SIGINT)  # Ctrl-C stops every node, in order.
      try:
        launcher.wait(timeout=120)
      except subprocess.TimeoutExpired:
        os.killpg(launcher.pid, signal.SIGKILL)
        launcher.wait()
  # Every node's log: the one that held the launcher up is not always a learner.
  logs = os.path.join(str(logdir), 'logs')
  names = sorted(n[:-len('.log')] for n in os.listdir(logs)) if os.path.isdir(logs) else []
  assert launcher.returncode == 0, (f'launcher exit {launcher.returncode}\n'
                                    + node_logs(logdir, names, tail_chars=1500))
  metrics = [m for d in learner_logdirs for m in read_metrics(d)]
  return reached, max(((m.get('episode_return') or 0.0), m['frames']) for m in metrics)


def latest_checkpoint(logdir) -> str:
  """The newest checkpoint's name (ckpt-N), or '' if there is none."""
  path = os.path.join(logdir, 'checkpoints', 'checkpoint')
  if not os.path.exists(path):
    return ''
  with open(path) as f:
    return f.readline().split('"')[1]  # model_checkpoint_path: "ckpt-N"


def run_eval(logdir, *flags, timeout=300):
  """`python -m seed_graph.launch.eval` on a run's logdir; (completed process, eval.json
  or None)."""
  result = subprocess.run(
      [sys.executable, '-m', 'seed_graph.launch.eval', f'--logdir={logdir}', *flags],
      cwd=REPO, capture_output=True, text=True, timeout=timeout)
  path = os.path.join(str(logdir), 'eval.json')
  summary = None
  if result.returncode == 0 and os.path.exists(path):
    with open(path) as f:
      summary = json.load(f)
  return result, summary


def read_metrics(logdir):
  path = os.path.join(logdir, 'metrics.jsonl')
  if not os.path.exists(path):
    return []
  with open(path) as f:
    return [json.loads(line) for line in f if line.strip()]


def wait_for(condition, seconds: float) -> bool:
  """Polls `condition()` until it holds (True) or `seconds` pass (False)."""
  deadline = time.time() + seconds
  while not condition():
    if time.time() > deadline:
      return False
    time.sleep(0.1)
  return True


# seed_graph.launch.supervision.node_process sets it in every node process.
NODE_VARIABLE = 'SEED_GRAPH_NODE'
MARKER_VARIABLE = 'SEED_GRAPH_TEST_MARKER'


def marked_processes(marker):
  """Every live process started (directly or not) by a launch tagged with `marker`."""
  import psutil  # pylint: disable=g-import-not-at-top
  found = []
  for process in psutil.process_iter(['pid']):
    try:
      if process.environ().get(MARKER_VARIABLE) == marker:
        found.append(process)
    except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
      pass
  return found


def node_processes(marker):
  """The live node processes of a launch tagged with `marker`, by node name."""
  import psutil  # pylint: disable=g-import-not-at-top
  nodes = {}
  for process in marked_processes(marker):
    try:
      name = process.environ().get(NODE_VARIABLE)
    except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
      continue
    if name:
      nodes[name] = process
  return nodes


def start_launch(logdir, marker, *flags, config='cartpole_vtrace'):
  """Starts `launch.local` tagged with `marker`, its output in `<logdir>.out`."""
  os.makedirs(os.path.dirname(str(logdir)), exist_ok=True)
  output = open(str(logdir) + '.out', 'w')
  return subprocess.Popen(launch_command(logdir, *flags, config=config), cwd=REPO,
                          env=dict(os.environ, **{MARKER_VARIABLE: marker}),
                          stdout=output, stderr=subprocess.STDOUT, text=True)


def launch_output(logdir) -> str:
  with open(str(logdir) + '.out') as f:
    return f.read()


def node_logs(logdir, names, tail_chars=3000) -> str:
  """The last `tail_chars` of each named node's log, for a failure message."""
  parts = []
  for name in names:
    path = os.path.join(str(logdir), 'logs', name.replace('/', '_') + '.log')
    try:
      with open(path, errors='replace') as f:
        parts.append(f'--- {name} ---\n' + f.read()[-tail_chars:])
    except OSError as error:
      parts.append(f'--- {name}: no log ({error}) ---')
  return '\n'.join(parts)


def serving_vtrace_learner(logdir_path, algorithm=None, **overrides):
  """A V-trace learner (`small_cartpole_config`) serving inference on a free local port:
  `.address`, `.config`; call `.shutdown()`."""
  import portpicker  # pylint: disable=g-import-not-at-top
  from seed_graph.algos.vtrace import learning  # pylint: disable=g-import-not-at-top
  from seed_graph.nodes.learner import shell as learner_lib  # pylint: disable=g-import-not-at-top
  config = small_cartpole_config(logdir_path, **overrides)
  node = learner_lib.Learner(config, algorithm or learning.VTrace)
  port = portpicker.pick_unused_port()
  node.serve(port)
  node.address = f'localhost:{port}'
  node.config = config
  return node


def vtrace_inference_step(learner, rng, count=4):
  """One inference step of a V-trace learner for `count` CartPole environments, as an
  actor's request would make it."""
  from seed_graph.inference import messages  # pylint: disable=g-import-not-at-top
  learner.infer_batch([messages.InferenceRequest(
      np.arange(count, dtype=np.int32), np.full(count, 3, np.int64),
      rng.random(count).astype(np.float32), np.zeros(count, bool), np.zeros(count, bool),
      rng.normal(size=(count, 4)).astype(np.float32), False, np.zeros(count, bool))])


def queued_vtrace_unrolls(learner, rng, count=4, steps=6):
  """`count` unrolls from a V-trace learner's own inference for `count` CartPole
  environments, as in a run; `steps` is the config's unroll length + 1
  (`small_cartpole_config`'s: 5 + 1)."""
  for _ in range(steps):
    vtrace_inference_step(learner, rng, count)
  return [learner.algorithm.unroll_queue.get_nowait() for _ in range(count)]


# `python -c INFERENCE_PROBE HOST SECRET PORT...` (SECRET '' for none): one inference
# call to each port, printing `PORT STATUS` (OK, or the gRPC status it was refused with).
INFERENCE_PROBE = """
import sys
import grpc
from seed_graph.inference import transport
host, secret, ports = sys.argv[1], sys.argv[2] or None, sys.argv[3:]
for port in ports:
  stream = transport.InferenceClient(f'{host}:{port}', secret=secret).open_stream()
  try:
    stream.infer(b'not a request')
    print(port, 'OK')
  except grpc.RpcError as error:
    print(port, error.code().name)
"""


def probe_statuses(output: str) -> dict:
  """{port: status} from INFERENCE_PROBE's output."""
  return dict(line.split() for line in output.splitlines())

