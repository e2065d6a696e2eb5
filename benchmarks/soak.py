r"""A long run of a whole program: memory of every node over time, then a stop.

  python -m benchmarks.soak [--minutes=30] [--config=configs/cartpole_vtrace.py] \
      [--actors=4] [--sample_seconds=30] [--out=/tmp/soak.json]

Launches `launch.local` (local_mp, supervised) with `--actors` actors and no end of
frames, samples the resident memory (RSS) of each node process every `--sample_seconds`,
then sends Ctrl-C (SIGINT) and times the stop. Reports, per node, RSS at minute 5 and at
the end and the growth between them (the target: under 10% per process), the frames
trained, the stop time, whether a final checkpoint was written, and whether any process
was left behind. Writes every sample to `--out` as JSON.
"""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time

from absl import app
from absl import flags
import psutil

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

from seed_graph.launch.supervision import node_process  # pylint: disable=g-import-not-at-top,wrong-import-position
from seed_graph import metrics as metrics_lib  # pylint: disable=g-import-not-at-top,wrong-import-position

_MINUTES = flags.DEFINE_float('minutes', 30, 'How long to train before stopping.')
_CONFIG = flags.DEFINE_string('config', 'configs/cartpole_vtrace.py', 'Config file.')
_ACTORS = flags.DEFINE_integer('actors', 4, 'Actor processes.')
_SAMPLE_SECONDS = flags.DEFINE_float('sample_seconds', 30, 'Seconds between samples.')
_OUT = flags.DEFINE_string('out', '/tmp/soak.json', 'Where the samples go.')
_BASE_MINUTE = 5.0


def node_rss(launcher: psutil.Process) -> dict:
  """RSS in MiB of the launcher and each node process (by node name)."""
  rss = {'launcher': launcher.memory_info().rss / 2**20}
  for child in launcher.children(recursive=True):
    try:
      name = child.environ().get(node_process.NODE_NAME_VARIABLE)
      if name:
        rss[name] = child.memory_info().rss / 2**20
    except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
      pass
  return rss


def growth_report(samples, base_minute: float) -> dict:
  """Per process: RSS at the first sample from `base_minute` on, at the last, growth %."""
  base_minute = min(base_minute, samples[-1]['minute'] / 2)  # Short trial runs.
  base = next(s for s in samples if s['minute'] >= base_minute)
  last = samples[-1]
  return {name: {'rss_mib_base': round(base['rss'][name], 1),
                 'rss_mib_end': round(last['rss'][name], 1),
                 'growth_percent': round(100 * (last['rss'][name] / base['rss'][name] - 1), 1)}
          for name in sorted(last['rss']) if name in base['rss']}


def main(argv):
  del argv
  logdir = tempfile.mkdtemp(prefix='soak-')
  command = [sys.executable, '-m', 'seed_graph.launch.local', f'--config={_CONFIG.value}',
             f'--logdir={logdir}', '--config.total_environment_frames=10000000000',
             f'--config.actors.num={_ACTORS.value}']
  with open(os.path.join(logdir, 'launcher.out'), 'w') as output:
    launcher = subprocess.Popen(command, cwd=REPO, stdout=output, stderr=subprocess.STDOUT)
  process = psutil.Process(launcher.pid)
  start = time.time()
  samples = []
  try:
    while time.time() - start < _MINUTES.value * 60:
      time.sleep(_SAMPLE_SECONDS.value)
      samples.append({'minute': (time.time() - start) / 60, 'rss': node_rss(process)})
      print(f"minute {samples[-1]['minute']:.1f}: " + ', '.join(
          f'{k}={v:.0f}' for k, v in sorted(samples[-1]['rss'].items())), flush=True)
    nodes = process.children(recursive=True)
    stop_start = time.time()
    launcher.send_signal(signal.SIGINT)
    launcher.wait(timeout=300)
    stop_seconds = time.time() - stop_start
  finally:
    if launcher.poll() is None:
      launcher.kill()
  time.sleep(1)
  left = [p.pid for p in nodes if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
  metrics = metrics_lib.last_record(logdir)
  report = {'minutes': _MINUTES.value, 'config': _CONFIG.value, 'actors': _ACTORS.value,
            'frames': metrics['frames'], 'learner_steps': metrics['learner_steps'],
            'launcher_exit_code': launcher.returncode, 'stop_seconds': round(stop_seconds, 1),
            'final_checkpoint': os.path.exists(os.path.join(logdir, 'checkpoints',
                                                            'checkpoint')),
            'processes_left': left,
            'rss_from_minute_5': growth_report(samples, _BASE_MINUTE), 'logdir': logdir}
  with open(_OUT.value, 'w') as f:
    json.dump(dict(report, samples=samples), f)
  print(json.dumps(report, indent=1))


if __name__ == '__main__':
  app.run(main)
