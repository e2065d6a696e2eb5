r"""Memory of R2D2's replay: the resident bytes one stored sequence costs.

  python -m benchmarks.replay_memory [--config=atari_r2d2] \
      [--distinct_frames=20000] [--config.KEY=VALUE ...]

e.g. `--config.env.game=MsPacman`, or `--config.replay.capacity=N` for another size.
A smoke run (seconds): `--config=cartpole_r2d2 --distinct_frames=100
--config.replay.capacity=64`.

Fills a Reverb table built like the replay node's (the same signature, chunk length and
sequence writer, on what the actors step: single frames, which the learner stacks) with
real observations (`--distinct_frames` of random play, cycled) up to `replay.capacity`
sequences, and prints the growth of this process's resident memory: what the replay
node holds at that capacity, which a run of minutes cannot reach. The memory of every
node of a running program is `benchmarks.soak`'s (e.g. `--config=atari_r2d2
--actors=0 --minutes=10 --sample_seconds=1`). Prints JSON.
"""

import json
import os
import time

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '2')

from absl import app  # pylint: disable=g-import-not-at-top
from absl import flags
import numpy as np
import psutil

from benchmarks import learners

_CONFIG = flags.DEFINE_string('config', 'atari_r2d2', 'An R2D2 config, a preset or a .py file '
                              '(overridden by --config.KEY=VALUE).')
_DISTINCT_FRAMES = flags.DEFINE_integer('distinct_frames', 20_000,
                                        'Observations of random play, cycled.')
_OVERRIDES = []  # The KEY=VALUE of every --config.KEY=VALUE, in order.
_WRITER_ENVS = 32  # Environments the sequence writer interleaves.


def random_play(env_config, count: int):
  """`count` observations of random play (episodes end and restart); (them, actions)."""
  from seed_graph import envs  # pylint: disable=g-import-not-at-top
  env = envs.make_environment(env_config, seed=0)
  num_actions = env.action_spec().num_values
  rng = np.random.default_rng(0)
  observations = [env.reset().observation]
  while len(observations) < count:
    step = env.step(int(rng.integers(num_actions)))
    observations.append(step.observation)
    if step.last():
      observations.append(env.reset().observation)
  close = getattr(env, 'close', None)
  if close:
    close()
  return np.stack(observations[:count]), num_actions


def fill(config, distinct_frames: int) -> dict:
  import reverb  # pylint: disable=g-import-not-at-top
  from seed_graph import envs  # pylint: disable=g-import-not-at-top
  from seed_graph.algos.r2d2 import replay as r2d2_replay  # pylint: disable=g-import-not-at-top
  from seed_graph.algos.r2d2 import sequences  # pylint: disable=g-import-not-at-top

  env_config = learners.acting_env(config)
  frames, num_actions = random_play(env_config, distinct_frames)
  capacity = config.replay.capacity
  process = psutil.Process()
  baseline = process.memory_info().rss
  signature = r2d2_replay.replay_signature(config, envs.read_spec(env_config))
  # The replay node's table, but without its rate limiter (which would need a learner
  # sampling alongside); the limiter holds no data, so memory is the same.
  table = reverb.Table(
      name=r2d2_replay.TABLE,
      sampler=reverb.selectors.Prioritized(config.replay.priority_exponent),
      remover=reverb.selectors.Fifo(), max_size=capacity,
      rate_limiter=reverb.rate_limiters.MinSize(1), signature=signature)
  server = reverb.Server([table], port=None)
  client = reverb.Client(f'localhost:{server.port}')
  writer = sequences.SequenceWriter(
      client, r2d2_replay.TABLE, _WRITER_ENVS, r2d2_replay.sequence_layout(config),
      num_actions, config.replay.chunk_length, lambda s: np.ones(s['action'].shape[1]))
  state = np.zeros((_WRITER_ENVS, signature['core_state'].shape[0]), np.float32)
  q_values = np.zeros((_WRITER_ENVS, num_actions), np.float32)
  env_ids = np.arange(_WRITER_ENVS)
  zeros = np.zeros(_WRITER_ENVS)
  rng = np.random.default_rng(1)
  t, start = 0, time.time()
  while client.server_info()[r2d2_replay.TABLE].current_size < capacity:
    index = (t + 997 * env_ids) % len(frames)
    writer.append(env_ids, {
        'observation': frames[index], 'prev_action': zeros, 'reward': zeros,
        'done': zeros.astype(bool), 'truncation': zeros.astype(bool),
        'action': rng.integers(0, num_actions, _WRITER_ENVS),
    }, q_values, state)
    t += 1
  writer.flush_all()
  time.sleep(2)  # Chunks still in flight.
  size = client.server_info()[r2d2_replay.TABLE].current_size
  grown = process.memory_info().rss - baseline
  writer.close()
  server.stop()
  return {
      'config': _CONFIG.value, 'overrides': _OVERRIDES, 'env': config.env.name,
      'game': config.env.get('game'), 'observation_shape': list(frames.shape[1:]),
      'frame_stack': config.env.frame_stack,
      'sequence_steps': r2d2_replay.sequence_layout(config).stored_length,
      'capacity': capacity, 'table_size': size, 'steps_written': int(t * _WRITER_ENVS),
      'seconds': round(time.time() - start, 1),
      'replay_rss_gib': round(grown / 2**30, 4),
      'bytes_per_sequence': round(grown / max(size, 1)),
  }


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f'unexpected arguments: {argv[1:]}')
  config = learners.load_config(_CONFIG.value, _OVERRIDES)
  from seed_graph.algos import r2d2  # pylint: disable=g-import-not-at-top
  from seed_graph.programs import registry  # pylint: disable=g-import-not-at-top
  if registry.algorithm_builder(config) is not r2d2.BUILDER:  # It fills R2D2's sequence table.
    raise app.UsageError(f'--config={_CONFIG.value}: algorithm {config.algorithm!r} is '
                         'not R2D2 (this measures the memory of R2D2\'s replay)')
  print(json.dumps(fill(config, _DISTINCT_FRAMES.value)))


if __name__ == '__main__':
  from seed_graph.launch.runs import config_args  # pylint: disable=g-import-not-at-top
  app.run(main, flags_parser=config_args.flags_parser(_OVERRIDES))
