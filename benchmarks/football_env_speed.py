"""Environment-only speed of Google Research Football through seed_graph's adapter.

One process, uniformly random actions, episodes reset as they end (reset time included).
Prints a JSON line and a small table.

  python benchmarks/football_env_speed.py [--steps 2000] [--warmup 50]
"""

import argparse
import json
import time

from ml_collections import config_dict
import numpy as np

from seed_graph.envs import football

CASES = (
    ('academy_empty_goal_close', 'simple115v2', False),
    ('11_vs_11_easy_stochastic', 'extracted', True),
)


def measure(scenario, representation, stacked, steps, warmup, seed=0):
  config = config_dict.ConfigDict(dict(
      name='football', scenario=scenario, representation=representation,
      rewards='scoring', stacked=stacked))
  env = football.make_environment(config, seed=seed)
  rng = np.random.RandomState(seed)
  num_actions = env.action_spec().num_values
  try:
    env.reset()
    for _ in range(warmup):
      if env.step(rng.randint(num_actions)).last():
        env.reset()
    episodes = 0
    start = time.perf_counter()
    for _ in range(steps):
      if env.step(rng.randint(num_actions)).last():
        episodes += 1
        env.reset()
    elapsed = time.perf_counter() - start
    spec = env.observation_spec()
  finally:
    env.close()
  return dict(scenario=scenario, representation=representation, stacked=stacked,
              observation=f'{np.dtype(spec.dtype).name}{list(spec.shape)}',
              steps=steps, episodes_ended=episodes, seconds=round(elapsed, 3),
              steps_per_second=round(steps / elapsed, 1))


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument('--steps', type=int, default=2000)
  parser.add_argument('--warmup', type=int, default=50)
  args = parser.parse_args()
  results = [measure(s, r, k, args.steps, args.warmup) for s, r, k in CASES]
  print(json.dumps({'benchmark': 'football_env_speed', 'results': results}))
  header = ('scenario', 'observation', 'steps', 'episodes', 'steps/s')
  rows = [(r['scenario'], r['observation'], str(r['steps']), str(r['episodes_ended']),
           f"{r['steps_per_second']:.1f}") for r in results]
  widths = [max(len(x) for x in col) for col in zip(header, *rows)]
  for row in (header, tuple('-' * w for w in widths), *rows):
    print('  '.join(x.ljust(w) for x, w in zip(row, widths)))


if __name__ == '__main__':
  main()
