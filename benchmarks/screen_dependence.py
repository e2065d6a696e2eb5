"""Does a V-trace run's agent look at the screen? Its newest checkpoint on random play.

  python benchmarks/screen_dependence.py --logdir=logs/pong_fast [--fresh] [--steps=400]

Plays `--steps` random actions in the run's environment (seed 0) and feeds every
observation to the agent from a zero state, with no previous action or reward, so
whatever varies in its output comes from the screen alone. Prints the torso features'
mean, largest value, active fraction and spread over time; the spread over time of the
value and the logits; and the value just before each lost point against 30 steps
earlier (an agent that reads Pong's ball values the moment before a lost point lower).
`--fresh` does the same for a newly initialized network of the run's config.
"""

import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from absl import app  # pylint: disable=g-import-not-at-top
from absl import flags
import numpy as np
import tensorflow as tf

from seed_graph.launch import eval as eval_lib
from seed_graph import envs

_FRESH = flags.DEFINE_bool('fresh', False, 'A fresh network of the run\'s config instead.')
_STEPS = flags.DEFINE_integer('steps', 400, 'Random-play steps.')
# --logdir comes with launch.eval (the run to load).


def _random_play(env_config, num_actions, num_steps):
  env = envs.make_environment(env_config, 0)
  rng = np.random.default_rng(0)
  observations, rewards = [env.reset().observation], [0.0]
  for _ in range(num_steps):
    step = env.step(int(rng.integers(num_actions)))
    step = env.reset() if step.last() else step
    observations.append(step.observation)
    rewards.append(float(step.reward or 0.0))
  return np.stack(observations), np.array(rewards)


def main(argv):
  del argv
  config = eval_lib.load_config(flags.FLAGS.logdir)
  with tempfile.TemporaryDirectory() as empty:
    if _FRESH.value:
      config.logdir = empty  # No checkpoint there: the network stays as initialized.
    agent = eval_lib.make_learner(config).algorithm.agent
  info = envs.read_spec(config.env)
  observations, rewards = _random_play(config.env, info.num_actions, _STEPS.value)
  size = len(observations)
  features = agent.torso_features(observations).numpy()
  output, _ = agent.step(tf.zeros(size, tf.int32), tf.zeros(size), tf.zeros(size, tf.bool),
                         observations, agent.initial_state(size))
  values, logits = output.baseline.numpy(), output.policy_logits.numpy()
  print(f'features: mean {features.mean():.3f}, largest {features.max():.2f}, active '
        f'{(features > 0).mean():.2f}, std over time {features.std(0).mean():.4f}')
  print(f'value: mean {values.mean():.3f}, std over time {values.std():.4f}; logits: std '
        f'over time {logits.std(0).mean():.4f}, spread across actions '
        f'{logits.std(1).mean():.3f}')
  lost = [t for t in np.flatnonzero(rewards < 0) if t > 30]
  if lost:
    before, earlier = values[np.array(lost) - 1], values[np.array(lost) - 30]
    print(f'{len(lost)} lost points: value just before {before.mean():.3f}, 30 steps '
          f'before {earlier.mean():.3f}; lower just before in {(before < earlier).sum()}')


if __name__ == '__main__':
  app.run(main)
