"""R2D2's pure TensorFlow pieces against NumPy references."""

import dm_env
from dm_env import specs
import numpy as np
import pytest
import tensorflow as tf

from seed_graph.algos.r2d2 import frame_stack
from seed_graph.algos.r2d2 import loss as r2d2
from seed_graph.algos.r2d2 import networks as q_networks
from seed_graph.envs import frame_stack as envs_frame_stack
from seed_graph.programs import registry


def _np_h(x, eps=1e-3):
  return np.sign(x) * (np.sqrt(np.abs(x) + 1) - 1) + eps * x


def test_value_rescale_matches_formula():
  x = np.array([-1e4, -10.0, -1.0, -1e-3, 0.0, 1e-3, 0.5, 1.0, 10.0, 1e4], np.float64)
  np.testing.assert_allclose(r2d2.value_rescale(x).numpy(), _np_h(x), rtol=1e-12)
  np.testing.assert_allclose(r2d2.value_rescale(x, eps=0.1).numpy(), _np_h(x, 0.1),
                             rtol=1e-12)


@pytest.mark.parametrize('dtype,rtol', [(np.float64, 1e-9), (np.float32, 1e-4)])
def test_inverse_value_rescale_inverts_over_a_wide_range(dtype, rtol):
  magnitudes = np.logspace(-6, 6, 2001)
  x = np.concatenate([-magnitudes[::-1], [0.0], magnitudes]).astype(dtype)
  roundtrip = r2d2.inverse_value_rescale(r2d2.value_rescale(x)).numpy()
  np.testing.assert_allclose(roundtrip, x, rtol=rtol, atol=1e-5 if dtype == np.float32 else 1e-9)
  # And the other way round: h(h^-1(y)) == y.
  y = x[np.abs(x) < 1e4]
  np.testing.assert_allclose(r2d2.value_rescale(r2d2.inverse_value_rescale(y)).numpy(), y,
                             rtol=rtol, atol=1e-5 if dtype == np.float32 else 1e-9)


def test_value_rescale_time_major_shapes():
  x = np.random.default_rng(0).normal(size=(7, 3)).astype(np.float32) * 100
  assert r2d2.value_rescale(x).shape == (7, 3)
  assert r2d2.inverse_value_rescale(x).shape == (7, 3)


def test_compute_priorities():
  rng = np.random.default_rng(1)
  errors = np.abs(rng.normal(size=(11, 4)))
  expected = 0.9 * errors.max(axis=0) + 0.1 * errors.mean(axis=0)
  np.testing.assert_allclose(r2d2.compute_priorities(errors).numpy(), expected, rtol=1e-12)
  np.testing.assert_allclose(r2d2.compute_priorities(errors, eta=0.5).numpy(),
                             0.5 * errors.max(axis=0) + 0.5 * errors.mean(axis=0),
                             rtol=1e-12)
  assert r2d2.compute_priorities(errors).shape == (4,)


def _np_n_step(rewards, dones, truncations, values, discount, n):
  """Straightforward loops: the reference for `n_step_targets`."""
  length = rewards.shape[0] - 1
  targets = np.zeros((length,) + rewards.shape[1:])
  mask = np.ones((length,) + rewards.shape[1:])
  for b in range(rewards.shape[1]):
    for t in range(length):
      total, scale, ended = 0.0, 1.0, False
      last = min(t + n, length)
      for s in range(t + 1, last + 1):
        total += scale * rewards[s, b]
        scale *= discount
        if dones[s, b]:
          ended = True
          if truncations[s, b]:
            mask[t, b] = 0.0
          break
      if not ended:
        total += discount ** (last - t) * values[last, b]
      targets[t, b] = total
  return targets, mask


@pytest.mark.parametrize('n', [1, 3, 5])
def test_n_step_targets_match_numpy_with_episode_ends(n):
  rng = np.random.default_rng(n)
  steps, batch = 17, 6
  rewards = rng.normal(size=(steps, batch)).astype(np.float32)
  dones = rng.random((steps, batch)) < 0.15
  dones[3, 0] = dones[4, 0] = True          # Two ends in a row.
  dones[:, 1] = False                       # No end at all.
  dones[-1, 2] = True                       # An end on the last step.
  truncations = dones & (rng.random((steps, batch)) < 0.4)
  truncations[8, 3] = dones[8, 3] = True    # A time limit inside the window.
  values = rng.normal(size=(steps, batch)).astype(np.float32) * 10
  targets, mask = r2d2.n_step_targets(rewards, dones, truncations, values, 0.97, n)
  expected_targets, expected_mask = _np_n_step(rewards, dones, truncations, values, 0.97, n)
  np.testing.assert_allclose(targets.numpy(), expected_targets, rtol=1e-5, atol=1e-5)
  np.testing.assert_array_equal(mask.numpy(), expected_mask)
  assert mask.numpy().min() == 0.0  # The truncation did mask something.


def test_n_step_target_by_hand():
  # One environment, n = 2, discount 0.5: rewards into steps 1..4, an episode end into 3.
  rewards = np.array([[0.], [1.], [2.], [4.], [8.]], np.float32)
  dones = np.array([[False], [False], [False], [True], [False]])
  values = np.array([[100.], [200.], [300.], [400.], [500.]], np.float32)
  targets, mask = r2d2.n_step_targets(rewards, dones, np.zeros_like(dones), values, 0.5, 2)
  # t=0: 1 + 0.5*2 + 0.25*V[2]; t=1: 2 + 0.5*4 (episode ended); t=2: 4 (ended);
  # t=3: 8 + 0.5*V[4] (window cut at the sequence end).
  np.testing.assert_allclose(targets.numpy()[:, 0], [2 + 75, 4, 4, 8 + 250])
  np.testing.assert_array_equal(mask.numpy()[:, 0], [1, 1, 1, 1])


def test_importance_weights():
  probabilities = np.array([0.1, 0.2, 0.4])
  weights = r2d2.importance_weights(probabilities, 10, exponent=0.6).numpy()
  raw = (10 * probabilities) ** -0.6
  np.testing.assert_allclose(weights, raw / raw.max(), rtol=1e-6)


def test_r2d2_loss_priorities_and_gradients():
  rng = np.random.default_rng(3)
  steps, batch, actions = 9, 4, 3
  online = tf.Variable(rng.normal(size=(steps, batch, actions)).astype(np.float32))
  target = rng.normal(size=(steps, batch, actions)).astype(np.float32)
  taken = rng.integers(0, actions, (steps, batch)).astype(np.int32)
  rewards = rng.normal(size=(steps, batch)).astype(np.float32)
  dones = rng.random((steps, batch)) < 0.2
  with tf.GradientTape() as tape:
    terms = r2d2.r2d2_loss(online, target, taken, rewards, dones, np.zeros_like(dones),
                           np.ones(batch, np.float32), discount=0.9, n_step=2)
  # Reference: double Q (argmax online, value target), rescaled targets.
  greedy = online.numpy().argmax(-1)
  boot = np.take_along_axis(target, greedy[..., None], -1)[..., 0]
  raw, mask = _np_n_step(rewards, dones, np.zeros_like(dones),
                         r2d2.inverse_value_rescale(boot.astype(np.float64)).numpy(), 0.9, 2)
  q_taken = np.take_along_axis(online.numpy(), taken[..., None], -1)[..., 0][:-1]
  td = (_np_h(raw) - q_taken) * mask
  np.testing.assert_allclose(terms.abs_td_errors.numpy(), np.abs(td), rtol=1e-4, atol=1e-4)
  np.testing.assert_allclose(terms.priorities.numpy(),
                             0.9 * np.abs(td).max(0) + 0.1 * np.abs(td).mean(0), rtol=1e-4)
  expected_loss = np.mean(0.5 * (td ** 2).sum(0))  # Summed over steps, as R2D2's.
  np.testing.assert_allclose(terms.loss.numpy(), expected_loss, rtol=1e-4)
  mean_terms = r2d2.r2d2_loss(online, target, taken, rewards, dones, np.zeros_like(dones),
                              np.ones(batch, np.float32), discount=0.9, n_step=2,
                              over_steps='mean')
  np.testing.assert_allclose(mean_terms.loss.numpy(),
                             np.mean(0.5 * (td ** 2).sum(0) / np.maximum(mask.sum(0), 1)),
                             rtol=1e-4)
  gradient = tape.gradient(terms.loss, online).numpy()
  assert np.abs(gradient[:-1]).sum() > 0
  np.testing.assert_array_equal(gradient[-1], 0)  # The bootstrap step is not trained.


def test_stack_frames_repeat_an_episodes_first_frame_before_its_start():
  # frames[t] = t + 1; stack 3; an episode starts at index 4.
  total, batch = 8, 1
  frames = np.arange(1, total + 1, dtype=np.uint8).reshape(total, batch, 1, 1)
  frames = np.broadcast_to(frames, (total, batch, 2, 2)).copy()
  dones = np.zeros((total, batch), bool)
  dones[4, 0] = True
  stacked = frame_stack.stack_frames(frames, dones, 3).numpy()
  assert stacked.shape == (total - 2, batch, 2, 2, 3)
  got = stacked[:, 0, 0, 0, :]
  np.testing.assert_array_equal(got, [[1, 2, 3], [2, 3, 4], [5, 5, 5], [5, 5, 6],
                                      [5, 6, 7], [6, 7, 8]])


def test_learner_stacking_pads_as_the_actors_frame_stack_does():
  """R2D2 stacks on the learner, V-trace on the actors: the agent sees the same."""
  rng = np.random.default_rng(4)
  steps, stack = 10, 4
  frames = rng.integers(1, 256, (steps, 3, 3), dtype=np.uint8)
  starts = np.zeros(steps, bool)
  starts[[0, 3, 4]] = True

  class Frames(dm_env.Environment):
    """Replays `frames`; a start is a reset."""
    def __init__(self):
      self.t = 0
    def reset(self):
      return dm_env.restart(frames[self.t])
    def step(self, action):
      return dm_env.transition(0.0, frames[self.t])
    def observation_spec(self):
      return specs.Array((3, 3), np.uint8)
    def action_spec(self):
      return specs.DiscreteArray(2)

  env = Frames()
  actor_side = envs_frame_stack.FrameStack(env, stack)
  stacker = frame_stack.FrameStacker(1, (3, 3), np.uint8, stack)
  for t in range(steps):
    env.t = t
    actor = (actor_side.reset() if starts[t] else actor_side.step(0)).observation
    learner = stacker(np.array([0]), frames[t][np.newaxis], starts[t:t + 1])[0]
    np.testing.assert_array_equal(actor, learner)


def test_q_networks_shapes_and_dueling():
  config = registry.default_config('r2d2', env='atari').network
  config.torso, config.torso_hidden_size, config.lstm_size = 'atari', 32, 16
  config.head_hidden_size, config.mlp_sizes = 8, (8,)
  network = q_networks.make_q_network(config, num_actions=5)
  observations = tf.zeros([3, 2, 84, 84, 4], tf.uint8)
  q, state = network.unroll(tf.zeros([3, 2], tf.int32), tf.zeros([3, 2]),
                            tf.zeros([3, 2], tf.bool), observations, network.initial_state(2))
  assert q.shape == (3, 2, 5)
  assert q_networks.state_sizes(network) == [16, 16]
  step_q, _ = network.step(tf.zeros([2], tf.int32), tf.zeros([2]), tf.zeros([2], tf.bool),
                           observations[0], network.initial_state(2))
  np.testing.assert_allclose(step_q.numpy(), q.numpy()[0], rtol=1e-5, atol=1e-6)
  config.torso = 'resnet'  # SEED's deep torso works for R2D2 too.
  resnet = q_networks.make_q_network(config, num_actions=5)
  q, _ = resnet.unroll(tf.zeros([3, 2], tf.int32), tf.zeros([3, 2]), tf.zeros([3, 2], tf.bool),
                       observations, resnet.initial_state(2))
  assert q.shape == (3, 2, 5)
  config.lstm_size = 0  # A feed-forward Q network: its state is one zero per environment.
  feed_forward = q_networks.make_q_network(config, num_actions=5)
  q, state = feed_forward.unroll(tf.zeros([3, 2], tf.int32), tf.zeros([3, 2]),
                                 tf.zeros([3, 2], tf.bool), observations,
                                 feed_forward.initial_state(2))
  assert q.shape == (3, 2, 5) and q_networks.state_sizes(feed_forward) == [1]
  config.torso, config.lstm_size = 'mlp', 16
  mlp = q_networks.make_q_network(config, num_actions=2)
  q, _ = mlp.unroll(tf.zeros([4, 3], tf.int32), tf.zeros([4, 3]), tf.zeros([4, 3], tf.bool),
                    tf.zeros([4, 3, 4]), mlp.initial_state(3))
  assert q.shape == (4, 3, 2)
