r"""The actors' environment backends alone (`env.backend`: python against envpool), no model.

  python -m benchmarks.env_backends [--config=atari_vtrace_fast] [--pairs=6] \
      [--window_seconds=10] [--config.KEY=VALUE ...]

A smoke run (seconds): `--pairs=1 --window_seconds=1 --config.actors.num=1
--config.actors.env_batch_size=2`.

Each backend runs in the config's `actors.num` processes of `actors.env_batch_size`
environments (Atari only: envpool steps nothing else), stepped with random actions as
`benchmarks.paired`'s env-only baseline does (the actor's own `seed_graph.envs.backends`,
writing the same request rows). Both
set-ups start once; the idle one is paused (SIGSTOP) while the other is measured, in
alternating windows. Reported: each backend's median frames/s (frame skip included) and
the median per-pair ratio envpool / python.
"""

import json
import multiprocessing
import os
import signal
import statistics
import time


from absl import app  # pylint: disable=g-import-not-at-top
from absl import flags

from benchmarks import learners
from benchmarks import paired

_CONFIG = flags.DEFINE_string('config', 'atari_vtrace_fast', 'Experiment config '
                              'file (overridden by --config.KEY=VALUE).')
_PAIRS = flags.DEFINE_integer('pairs', 6, 'Alternating python/envpool window pairs.')
_WINDOW = flags.DEFINE_float('window_seconds', 10.0, 'Measured seconds per window.')
_SETTLE = flags.DEFINE_float('settle_seconds', 1.0, 'Unmeasured seconds after a switch.')

_OVERRIDES = []  # The KEY=VALUE of every --config.KEY=VALUE, in order.

BACKENDS = ('python', 'envpool')


def main(argv):
  del argv
  multiprocessing.set_start_method('spawn')
  configs = {backend: learners.load_config(_CONFIG.value,
                                            _OVERRIDES + [f'env.backend={backend}'])
             for backend in BACKENDS}
  setups = {}
  for backend, config in configs.items():
    counters, workers, shutdown = paired.start_env_only(config)
    paired.signal_all(workers, signal.SIGSTOP)
    setups[backend] = (counters, workers, shutdown)
  rates = {backend: [] for backend in BACKENDS}
  try:
    for _ in range(_PAIRS.value):
      for backend in BACKENDS:
        counters, workers, _ = setups[backend]
        paired.signal_all(workers, signal.SIGCONT)
        time.sleep(_SETTLE.value)
        start, began = sum(c.value for c in counters), time.time()
        time.sleep(_WINDOW.value)
        rates[backend].append((sum(c.value for c in counters) - start) /
                              (time.time() - began))
        paired.signal_all(workers, signal.SIGSTOP)
  finally:
    for counters, workers, shutdown in setups.values():
      paired.signal_all(workers, signal.SIGCONT)
      shutdown()
  ratios = [e / p for p, e in zip(rates['python'], rates['envpool'])]
  config = configs['envpool']
  result = {backend: statistics.median(rates[backend]) for backend in BACKENDS}
  result.update(ratio=statistics.median(ratios), pairs=ratios, config=_CONFIG.value,
                overrides=_OVERRIDES, game=config.env.game, actors=config.actors.num,
                env_batch_size=config.actors.env_batch_size,
                envpool_threads=config.env.envpool_threads, cpu_count=os.cpu_count())
  print(json.dumps(result))
  print(f"python {result['python']:,.0f} frames/s, envpool {result['envpool']:,.0f} "
        f"frames/s; envpool / python, median of {len(ratios)} pairs: {result['ratio']:.3f} "
        f"(pairs: {', '.join(f'{r:.3f}' for r in ratios)})")


if __name__ == '__main__':
  # Not at the top: spawned processes import this module again, and this loads TensorFlow.
  from seed_graph.launch.runs import config_args  # pylint: disable=g-import-not-at-top
  app.run(main, flags_parser=config_args.flags_parser(_OVERRIDES))
