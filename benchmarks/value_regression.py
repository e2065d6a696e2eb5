"""Can a config's network read the value of a game's screen? Plain regression, no RL.

  python benchmarks/value_regression.py --config=configs/atari_vtrace_fast.py \
      [--steps=500] [--config.network.center_frames=false] [--config.KEY=VALUE ...]

Random play in the config's environment (8 environments for training data, 4 others
for held-out data) gives frames and their discounted returns (rewards clipped to
[-1, 1], the learner's discount; the last 300 steps of each environment are dropped,
their returns being cut short). The agent's baseline head, with the whole torso, is
then regressed on those returns with the config's Adam settings, in batches of
`batch_size x unroll_length` frames, and the held-out correlation between predicted and
actual return is printed as it goes. In Pong the return is set by where the ball is
(how soon the next point is lost), so a network that reads the screen gets a clear
positive correlation; one that stays near 0 cannot learn the value in RL either.
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from absl import app  # pylint: disable=g-import-not-at-top
from absl import flags
from ml_collections import config_flags
import numpy as np
import tensorflow as tf

from seed_graph import envs
from seed_graph.algos import networks

_CONFIG = config_flags.DEFINE_config_file('config', None, 'Experiment config file.',
                                          lock_config=False)
_STEPS = flags.DEFINE_integer('steps', 500, 'Regression steps.')
_AGENT_STEPS = flags.DEFINE_integer('agent_steps', 2300, 'Random-play steps per training '
                                    'environment (held-out environments: 800).')
_DROPPED_TAIL = 300
flags.mark_flags_as_required(['config'])


def _random_play(config, first_seed, num_envs, num_steps, num_actions):
  """(observations, discounted clipped returns) of random play, tails dropped."""
  rng = np.random.default_rng(first_seed)
  observations, returns = [], []
  for seed in range(first_seed, first_seed + num_envs):
    env = envs.make_environment(config.env, seed)
    frames, rewards = [env.reset().observation], []
    for _ in range(num_steps):
      step = env.step(int(rng.integers(num_actions)))
      rewards.append(float(np.clip(step.reward or 0.0, -1.0, 1.0)))
      frames.append((env.reset() if step.last() else step).observation)
    discounted, running = np.zeros(num_steps, np.float32), 0.0
    for t in reversed(range(num_steps)):
      running = rewards[t] + config.learner.discount * running
      discounted[t] = running
    observations += frames[:num_steps - _DROPPED_TAIL]
    returns.append(discounted[:num_steps - _DROPPED_TAIL])
  return np.stack(observations), np.concatenate(returns)


def main(argv):
  del argv
  config = _CONFIG.value
  config.network.compute_dtype = 'float32'  # bfloat16 needs oneDNN, off here.
  info = envs.read_spec(config.env)
  started = time.time()
  frames, returns = _random_play(config, 0, 8, _AGENT_STEPS.value, info.num_actions)
  held_frames, held_returns = _random_play(config, 100, 4, 800, info.num_actions)
  print(f'{len(frames)} training and {len(held_frames)} held-out frames; held-out return '
        f'std {held_returns.std():.3f} ({time.time() - started:.0f} s)', flush=True)

  agent = networks.make_agent(config.network, info.observation_shape, info.num_actions)
  optimizer = tf.keras.optimizers.Adam(
      config.learner.learning_rate, beta_1=config.learner.adam_beta1,
      beta_2=config.learner.adam_beta2, epsilon=config.learner.adam_epsilon)

  def values(observations):
    size = observations.shape[0]
    output, _ = agent.step(tf.zeros(size, tf.int32), tf.zeros(size), tf.zeros(size, tf.bool),
                           observations, agent.initial_state(size))
    return output.baseline

  @tf.function
  def regression_step(observations, targets):
    with tf.GradientTape() as tape:
      loss = 0.5 * tf.reduce_mean(tf.square(values(observations) - targets))
    variables = [v for v in agent.trainable_variables if 'policy_logits' not in v.name]
    optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))

  rng = np.random.default_rng(1)
  batch_size = config.learner.batch_size * config.learner.unroll_length
  for step in range(1, _STEPS.value + 1):
    rows = rng.integers(0, len(frames), batch_size)
    regression_step(tf.constant(frames[rows]), tf.constant(returns[rows]))
    if step in (50, 100) or step % 250 == 0 or step == _STEPS.value:
      predicted = np.concatenate([values(tf.constant(held_frames[i:i + 500])).numpy()
                                  for i in range(0, len(held_frames), 500)])
      correlation = np.corrcoef(predicted, held_returns)[0, 1]
      print(f'step {step}: held-out correlation {correlation:.3f}, predicted std '
            f'{predicted.std():.3f} ({time.time() - started:.0f} s)', flush=True)


if __name__ == '__main__':
  app.run(main)
