r"""Where a training program's CPU goes: each process's share of the machine, and inside
the learner, each thread's, with the functions its Python threads run.

  python -m benchmarks.cpu_profile [--config=atari_vtrace_fast] [--warmup_seconds=90] \
      [--seconds=60] [--rate=100] [--out=/tmp/cpu_profile.json] [--logdir=DIR] \
      [--config.KEY=VALUE ...]

A smoke run (under a minute): `--config=cartpole_vtrace --warmup_seconds=5 --seconds=5`.

Launches `python -m seed_graph.launch.local` on `--config` as it is (its actors and
evaluators) with no end of frames. `--warmup_seconds` after the learner's first metrics
record, for `--seconds`, it measures:
- the CPU time (user + system, /proc/PID/stat) of the launcher and of every node process,
  as cores (1.0: one core busy the whole window), and the machine's busy cores
  (/proc/stat);
- the learner's threads one by one: a Python thread by its name (`py-spy dump`), any
  other (TensorFlow's compute threads, gRPC's own) as `native`;
- what the learner's Python threads run: `py-spy record --threads` samples their stacks,
  and each thread's CPU is shared among the innermost seed_graph functions of its
  samples, in proportion (a thread's samples count time it waits in native code too,
  which is why its CPU, not its samples, is what is shared);
- the frames, learner steps and inference batches the learner recorded in the window,
  hence the learner's CPU per training step and per inference batch.
Then Ctrl-C. Prints a table, then one JSON line, also written to `--out`.

py-spy comes with the `test` extra (`scripts/setup_env.sh`); it reads the learner's
memory, so it needs root or ptrace permission over the learner.
"""

import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from typing import Dict, List, Tuple

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '2')

from absl import app  # pylint: disable=g-import-not-at-top
from absl import flags
import psutil

from benchmarks import launched  # pylint: disable=g-import-not-at-top
from benchmarks.node_processes import node_processes
from seed_graph.nodes.learner import metrics as metrics_lib  # pylint: disable=g-import-not-at-top

LEARNER = 'learner/0'

_CONFIG = flags.DEFINE_string('config', 'atari_vtrace_fast', 'Experiment config, a preset '
                              'or a .py file (overridden by --config.KEY=VALUE).')
_WARMUP = flags.DEFINE_float('warmup_seconds', 90, 'Training before the window.')
_SECONDS = flags.DEFINE_float('seconds', 60, 'The measured window.')
_RATE = flags.DEFINE_integer('rate', 100, 'py-spy samples per second.')
_OUT = flags.DEFINE_string('out', '/tmp/cpu_profile.json', 'Where the report goes.')
_LOGDIR = flags.DEFINE_string('logdir', None, 'The run\'s logdir (py-spy\'s samples go there '
                              'too); default: a new temporary directory.')
_OVERRIDES = []  # The KEY=VALUE of every --config.KEY=VALUE, in order.
_TICKS = os.sysconf('SC_CLK_TCK')


def _ticks(stat_path: str) -> int:
  """User + system clock ticks of the process or thread whose stat file this is."""
  with open(stat_path) as f:
    fields = f.read().rsplit(')', 1)[1].split()
  return int(fields[11]) + int(fields[12])


def _machine_ticks() -> Tuple[int, int]:
  """(busy, all) clock ticks of the whole machine so far."""
  with open('/proc/stat') as f:
    values = [int(v) for v in f.readline().split()[1:]]
  idle = values[3] + values[4]  # idle + iowait
  return sum(values) - idle, sum(values)


def cpu_snapshot(pids: Dict[str, int]) -> dict:
  """Clock ticks so far of each named process, of each thread of the learner, and of
  the machine."""
  processes, threads = {}, {}
  for name, pid in pids.items():
    try:
      processes[name] = _ticks(f'/proc/{pid}/stat')
    except OSError:
      pass  # Gone: a restarted node is counted from its new process on.
  task_dir = f'/proc/{pids[LEARNER]}/task'
  for tid in os.listdir(task_dir):
    try:
      threads[int(tid)] = _ticks(f'{task_dir}/{tid}/stat')
    except OSError:
      pass
  return {'time': time.time(), 'processes': processes, 'threads': threads,
          'machine': _machine_ticks()}


def py_spy() -> str:
  """py-spy beside this Python (a venv's bin need not be on PATH), else on PATH."""
  beside = os.path.join(os.path.dirname(sys.executable), 'py-spy')
  return beside if os.path.exists(beside) else 'py-spy'


def python_threads(pid: int) -> Dict[int, Tuple[int, str]]:
  """{Python's thread id: (native thread id, thread name)} of the process (`py-spy dump`;
  its samples name threads by Python's id, /proc by the native one)."""
  dump = subprocess.run([py_spy(), 'dump', '--json', '--pid', str(pid)], capture_output=True,
                        text=True, timeout=60, check=True).stdout
  return {thread['thread_id']: (thread['os_thread_id'], thread['thread_name'])
          for thread in json.loads(dump)}


def innermost_functions(raw: str) -> Dict[int, collections.Counter]:
  """{Python's thread id: Counter of `function (file)`}: for each sample of py-spy's raw
  output (`--threads`: the thread first, frames root to leaf, then the count), its
  innermost seed_graph frame, else its innermost Python frame."""
  counts = collections.defaultdict(collections.Counter)
  for line in raw.splitlines():
    stack, _, count = line.rpartition(' ')
    frames = stack.split(';')
    match = re.match(r'thread \(0x([0-9a-fA-F]+)\)', frames[0])
    if not match or not count.isdigit():
      continue
    tid = int(match.group(1), 16)
    ours = [f for f in frames if 'seed_graph/' in f] or [f for f in frames if '.py:' in f]
    where = re.sub(r':\d+\)$', ')', ours[-1]) if ours else '(native code)'
    counts[tid][where] += int(count)
  return counts


def thread_report(before: dict, after: dict, python: Dict[int, Tuple[int, str]],
                  samples: Dict[int, collections.Counter]) -> List[dict]:
  """The learner's threads by CPU, each Python thread's shared among its functions."""
  seconds = after['time'] - before['time']
  names = {native: name for native, name in python.values()}
  functions_of = {native: samples.get(ident, collections.Counter())
                  for ident, (native, _) in python.items()}
  rows = []
  for tid, ticks in after['threads'].items():
    cores = (ticks - before['threads'].get(tid, 0)) / _TICKS / seconds
    functions = functions_of.get(tid, collections.Counter())
    total = sum(functions.values())
    rows.append({'thread': names.get(tid, 'native'), 'tid': tid, 'cores': round(cores, 3),
                 'functions': {f: round(cores * n / total, 3)
                               for f, n in functions.most_common(8)} if total else {}})
  return sorted(rows, key=lambda row: -row['cores'])


def rates(first: dict, last: dict) -> dict:
  """Frames, learner steps and inference batches per second between two of the learner's
  metrics records (of one learner process: `wall_time` counts from its start)."""
  span = last['wall_time'] - first['wall_time']
  if span <= 0:
    return {}
  return {f'{key}_per_second': round((last[key] - first[key]) / span, 2)
          for key in ('frames', 'learner_steps', 'inference_batches') if key in last}


def report(before: dict, after: dict, threads: List[dict], progress: dict) -> dict:
  """The window's figures: cores per process and in the machine, the learner's threads,
  and the learner's CPU per training step and per inference batch."""
  seconds = after['time'] - before['time']
  processes = {name: round((ticks - before['processes'][name]) / _TICKS / seconds, 3)
               for name, ticks in after['processes'].items() if name in before['processes']}
  busy = after['machine'][0] - before['machine'][0]
  every = after['machine'][1] - before['machine'][1]
  learner = processes.get(LEARNER, 0.0)
  per = {}
  for key, unit in (('learner_steps_per_second', 'training_step'),
                    ('inference_batches_per_second', 'inference_batch')):
    if progress.get(key):
      per[f'learner_cpu_ms_per_{unit}'] = round(1000 * learner / progress[key], 1)
  return {'config': _CONFIG.value, 'overrides': _OVERRIDES, 'seconds': round(seconds, 1),
          'machine_cores': os.cpu_count(),
          'machine_busy_cores': round(os.cpu_count() * busy / every, 3) if every else None,
          'process_cores': processes, **progress, **per, 'learner_threads': threads}


def print_table(figures: dict) -> None:
  print(f"{figures['seconds']} s; machine: {figures['machine_busy_cores']} of "
        f"{figures['machine_cores']} cores busy")
  for name, cores in sorted(figures['process_cores'].items(), key=lambda kv: -kv[1]):
    print(f'  {cores:6.3f}  {name}')
  print('learner threads (cores), with what their Python code ran:')
  for row in figures['learner_threads']:
    if row['cores'] >= 0.005:
      print(f"  {row['cores']:6.3f}  {row['thread']} ({row['tid']})")
      for function, cores in row['functions'].items():
        print(f'      {cores:6.3f}  {function}')


def measure(launcher: psutil.Process, logdir: str) -> dict:
  """The window: CPU snapshots around py-spy's recording of the learner."""
  pids = {name: process.pid for name, process in node_processes(launcher).items()}
  python = python_threads(pids[LEARNER])
  samples_path = os.path.join(logdir, 'py-spy.txt')
  first, before = metrics_lib.last_record(logdir), cpu_snapshot(pids)
  subprocess.run(
      [py_spy(), 'record', '--pid', str(pids[LEARNER]), '--threads', '--nonblocking',
       '--rate', str(_RATE.value), '--duration', str(max(1, round(_SECONDS.value))),
       '--format', 'raw', '--output', samples_path],
      capture_output=True, timeout=_SECONDS.value + 120, check=True)
  after, last = cpu_snapshot(pids), metrics_lib.last_record(logdir)
  with open(samples_path) as f:
    threads = thread_report(before, after, python, innermost_functions(f.read()))
  return report(before, after, threads, rates(first, last))


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f'unexpected arguments: {argv[1:]}')
  logdir = _LOGDIR.value or tempfile.mkdtemp(prefix='cpu_profile-')
  os.makedirs(logdir, exist_ok=True)
  program = launched.LaunchedProgram(_CONFIG.value, _OVERRIDES, logdir)
  try:
    program.wait_for_training()
    time.sleep(_WARMUP.value)
    figures = measure(program.launcher, logdir)
  finally:
    program.stop()
  figures['logdir'] = logdir
  print_table(figures)
  with open(_OUT.value, 'w') as f:
    json.dump(figures, f, indent=1)
  print(json.dumps(figures))


if __name__ == '__main__':
  from seed_graph.launch.runs import config_args  # pylint: disable=g-import-not-at-top
  app.run(main, flags_parser=config_args.flags_parser(_OVERRIDES))
