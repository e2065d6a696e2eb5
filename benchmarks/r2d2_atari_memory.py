r"""Memory and speed of Atari R2D2 on this machine.

Two measurements:

  run   Launches `configs/atari_r2d2.py` (local_mp, every node a process) for --minutes,
        samples the resident memory of all its processes every second, then stops it
        with Ctrl-C. Prints frames/s, learner steps, replay size and the peak RSS (total
        and per node).

        python -m benchmarks.r2d2_atari_memory run --minutes=10 --logdir=/tmp/atari_r2d2

  fill  Fills a Reverb table built exactly like the replay node's (same signature, chunk
        length and sequence writer) with real Atari frames (random play, cycled) up to
        `replay.capacity`, and prints the replay's resident memory: what the replay node
        holds at its default capacity, which a 10-minute run cannot reach.

        python -m benchmarks.r2d2_atari_memory fill [--capacity=N]
"""

import argparse
import collections
import json
import os
import signal
import subprocess
import sys
import time
import uuid

import numpy as np
import psutil

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '2')


def _node_name(process):
  try:
    cmdline = ' '.join(process.cmdline())
  except (psutil.NoSuchProcess, psutil.AccessDenied):
    return None
  if 'process_entry' not in cmdline:
    return 'launcher' if 'launch.local' in cmdline else None
  try:
    parent = ' '.join(process.parent().cmdline())
  except (psutil.NoSuchProcess, psutil.AccessDenied, AttributeError):
    return 'node'
  for word in parent.split():
    if '/' in word and word.split('/')[0] in ('replay', 'learner', 'actor', 'evaluator'):
      return word
  return 'node'


def _marked(marker):
  found = []
  for process in psutil.process_iter(['pid']):
    try:
      if process.environ().get('SEED_GRAPH_BENCH_MARKER') == marker:
        found.append(process)
    except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
      pass
  return found


def run(args):
  marker = uuid.uuid4().hex
  command = [sys.executable, '-m', 'seed_graph.launch.local', '--config=configs/atari_r2d2.py',
             f'--logdir={args.logdir}'] + args.overrides
  os.makedirs(args.logdir, exist_ok=True)
  log_path = os.path.join(args.logdir, 'launch.log')
  log = open(log_path, 'w')
  start = time.time()
  launcher = subprocess.Popen(command, cwd=REPO, stdout=log,
                              stderr=subprocess.STDOUT, text=True,
                              env=dict(os.environ, SEED_GRAPH_BENCH_MARKER=marker),
                              start_new_session=True)
  peak_total = 0
  peak_by_node = collections.defaultdict(int)
  samples = []
  try:
    while time.time() - start < args.minutes * 60:
      if launcher.poll() is not None:
        break
      total = 0
      by_node = collections.defaultdict(int)
      for process in _marked(marker):
        try:
          rss = process.memory_info().rss
        except (psutil.NoSuchProcess, psutil.AccessDenied):
          continue
        name = _node_name(process)
        if name is None:
          continue
        total += rss
        by_node[name] += rss
      peak_total = max(peak_total, total)
      for name, rss in by_node.items():
        peak_by_node[name] = max(peak_by_node[name], rss)
      samples.append((time.time() - start, total))
      time.sleep(1.0)
  finally:
    crashed = launcher.poll() is not None
    if not crashed:
      os.killpg(launcher.pid, signal.SIGINT)  # Ctrl-C: the program stops itself.
    try:
      launcher.wait(timeout=120)
    except subprocess.TimeoutExpired:
      os.killpg(launcher.pid, signal.SIGKILL)
      launcher.wait()
    log.close()
  with open(log_path) as f:
    output = f.read()
  elapsed = time.time() - start
  metrics = []
  path = os.path.join(args.logdir, 'metrics.jsonl')
  if os.path.exists(path):
    with open(path) as f:
      metrics = [json.loads(line) for line in f if line.strip()]
  last = metrics[-1] if metrics else {}
  first_frames = metrics[0]['frames'] if metrics else 0
  run_time = (last.get('wall_time', 0) - metrics[0].get('wall_time', 0)) if metrics else 0
  report = {
      'ran_seconds': round(elapsed),
      'stopped_by_itself_or_crashed': crashed,
      'launcher_returncode': launcher.returncode,
      'frames': last.get('frames'),
      'frames_per_second': (last.get('frames', 0) - first_frames) / max(run_time, 1e-6),
      'learner_steps': last.get('learner_steps'),
      'replay_size': last.get('replay_size'),
      'sequences_written': last.get('sequences_written'),
      'episode_return': last.get('episode_return'),
      'peak_total_rss_gib': peak_total / 2**30,
      'peak_rss_gib_by_node': {k: v / 2**30 for k, v in sorted(peak_by_node.items())},
      'errors_in_output': [line for line in output.splitlines()
                           if 'Traceback' in line or 'Error' in line][:10],
  }
  print(json.dumps(report, indent=2))
  with open(os.path.join(args.logdir, 'memory_benchmark.json'), 'w') as f:
    json.dump({'report': report, 'rss_samples': samples}, f)


def fill(args):
  import reverb  # pylint: disable=g-import-not-at-top
  from seed_graph.configs import atari_r2d2  # pylint: disable=g-import-not-at-top
  from seed_graph import envs  # pylint: disable=g-import-not-at-top
  from seed_graph.algos.r2d2 import sequences  # pylint: disable=g-import-not-at-top
  from seed_graph.algos.r2d2 import replay as r2d2_replay  # pylint: disable=g-import-not-at-top

  config = atari_r2d2.get_config()
  config.logdir = '/tmp/unused'
  if args.capacity:
    config.replay.capacity = args.capacity
  if args.game:
    config.env.game = args.game
  capacity = config.replay.capacity
  process = psutil.Process()

  # Real frames: random play of the configured game.
  env = envs.make_environment(config.env, seed=0)
  num_actions = env.action_spec().num_values
  rng = np.random.default_rng(0)
  frames = [env.reset().observation]
  while len(frames) < args.distinct_frames:
    step = env.step(int(rng.integers(num_actions)))
    frames.append(step.observation)
    if step.last():
      frames.append(env.reset().observation)
  frames = np.stack(frames)
  env.close()

  baseline = process.memory_info().rss
  # The replay node's table, but without its rate limiter (which would need a learner
  # sampling alongside); the limiter holds no data, so memory is the same.
  table = reverb.Table(
      name=r2d2_replay.TABLE,
      sampler=reverb.selectors.Prioritized(config.replay.priority_exponent),
      remover=reverb.selectors.Fifo(), max_size=capacity,
      rate_limiter=reverb.rate_limiters.MinSize(1), signature=r2d2_replay.replay_signature(config, envs.read_spec(config.env)))
  server = reverb.Server([table], port=None)
  client = reverb.Client(f'localhost:{server.port}')
  layout = r2d2_replay.sequence_layout(config)
  envs_count = layout_envs = 32
  writer = sequences.SequenceWriter(
      client, r2d2_replay.TABLE, layout_envs, layout, num_actions,
      config.replay.chunk_length, lambda s: np.ones(s['action'].shape[1]))
  state = np.zeros((envs_count, 1024), np.float32)
  env_ids = np.arange(envs_count)
  t, start = 0, time.time()
  zeros = np.zeros(envs_count)
  while client.server_info()[r2d2_replay.TABLE].current_size < capacity:
    index = (t + 997 * env_ids) % len(frames)
    created = writer.append(env_ids, {
        'observation': frames[index], 'prev_action': zeros, 'reward': zeros,
        'done': zeros.astype(bool), 'truncation': zeros.astype(bool),
        'action': rng.integers(0, num_actions, envs_count),
    }, np.zeros((envs_count, num_actions), np.float32), state)
    del created
    t += 1
  writer.flush_all()
  time.sleep(2)
  size = client.server_info()[r2d2_replay.TABLE].current_size
  rss = process.memory_info().rss
  report = {
      'game': config.env.game, 'capacity': capacity, 'table_size': size, 'steps_written': int(t * envs_count),
      'seconds': round(time.time() - start),
      'replay_rss_gib': (rss - baseline) / 2**30,
      'bytes_per_sequence': (rss - baseline) / max(size, 1),
  }
  print(json.dumps(report, indent=2))


def main():
  parser = argparse.ArgumentParser(description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
  sub = parser.add_subparsers(dest='mode', required=True)
  run_parser = sub.add_parser('run')
  run_parser.add_argument('--minutes', type=float, default=10.0)
  run_parser.add_argument('--logdir', default='/tmp/atari_r2d2_benchmark')
  run_parser.add_argument('overrides', nargs='*', help='--config.KEY=VALUE flags')
  fill_parser = sub.add_parser('fill')
  fill_parser.add_argument('--capacity', type=int, default=0)
  fill_parser.add_argument('--distinct_frames', type=int, default=20_000)
  fill_parser.add_argument('--game', default='', help='default: the config\'s game')
  args = parser.parse_args()
  if args.mode == 'run':
    run(args)
  else:
    fill(args)


if __name__ == '__main__':
  main()
