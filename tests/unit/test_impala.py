"""The IMPALA loss terms and the networks' shapes and resets."""

import numpy as np
import pytest
import tensorflow as tf

from seed_graph.algos.vtrace import loss as impala
from seed_graph.algos import networks
from seed_graph.algos.vtrace import networks as vtrace_networks


def _inputs(num_steps=6, batch=3, num_actions=4, seed=0):
  rng = np.random.default_rng(seed)
  outputs = vtrace_networks.AgentOutput(
      policy_logits=tf.constant(rng.normal(size=(num_steps, batch, num_actions)), tf.float32),
      baseline=tf.constant(rng.normal(size=(num_steps, batch)), tf.float32))
  return dict(
      learner_outputs=outputs,
      behaviour_logits=tf.constant(rng.normal(size=(num_steps, batch, num_actions)),
                                   tf.float32),
      actions=tf.constant(rng.integers(0, num_actions, (num_steps, batch)), tf.int32),
      rewards=tf.constant(rng.normal(size=(num_steps, batch)), tf.float32),
      dones=tf.constant(rng.random((num_steps, batch)) < 0.2))


def _loss(**overrides):
  kwargs = dict(discount=0.99, baseline_cost=0.5, entropy_cost=0.01)
  kwargs.update(overrides)
  return impala.impala_loss(**kwargs)


def test_total_is_weighted_sum_of_terms():
  terms = _loss(**_inputs())
  expected = terms.policy_loss + 0.5 * terms.baseline_loss - 0.01 * terms.entropy
  np.testing.assert_allclose(terms.total_loss.numpy(), expected.numpy(), rtol=1e-6)
  assert 0 < terms.entropy.numpy() <= np.log(4) + 1e-6


def test_uniform_policy_entropy():
  inputs = _inputs()
  inputs['learner_outputs'] = inputs['learner_outputs']._replace(
      policy_logits=tf.zeros((6, 3, 4)))
  np.testing.assert_allclose(_loss(**inputs).entropy.numpy(), np.log(4), rtol=1e-6)


def test_truncated_transition_gives_no_signal():
  inputs = _inputs()
  dones = np.zeros((6, 3), bool)
  dones[3, 1] = True
  truncations = np.zeros((6, 3), bool)
  truncations[3, 1] = True
  inputs['dones'] = tf.constant(dones)
  base = _loss(**inputs, truncations=tf.constant(truncations))
  # The reward of the truncated transition no longer matters ...
  rewards = inputs['rewards'].numpy()
  rewards[3, 1] += 100.0
  inputs['rewards'] = tf.constant(rewards)
  changed = _loss(**inputs, truncations=tf.constant(truncations))
  np.testing.assert_allclose(changed.total_loss.numpy(), base.total_loss.numpy(), rtol=1e-5)
  # ... whereas for a real terminal state it does.
  terminal = _loss(**inputs, truncations=tf.zeros((6, 3), tf.bool))
  assert abs(terminal.total_loss.numpy() - base.total_loss.numpy()) > 1e-3


def test_reward_clipping_modes():
  rewards = tf.constant([-10.0, -0.5, 0.0, 0.5, 10.0])
  np.testing.assert_allclose(impala.clip_rewards(rewards, 'abs_one').numpy(),
                             [-1, -0.5, 0, 0.5, 1])
  soft = impala.clip_rewards(rewards, 'soft_asymmetric').numpy()
  assert soft[0] > -1.6 and soft[-1] < 5.0 and soft[2] == 0.0
  assert abs(soft[0]) < abs(soft[-1])  # Negative rewards are squashed harder.


def test_reward_scale_multiplies_rewards_after_clipping():
  inputs = _inputs()
  scaled = _loss(**inputs, reward_scale=0.01, reward_clipping='abs_one')
  clipped = np.clip(inputs['rewards'].numpy(), -1.0, 1.0)
  by_hand = _loss(**dict(inputs, rewards=tf.constant(0.01 * clipped)))
  np.testing.assert_allclose(scaled.total_loss.numpy(), by_hand.total_loss.numpy(),
                             rtol=1e-5)
  unscaled = _loss(**inputs, reward_clipping='abs_one')
  assert abs(unscaled.total_loss.numpy() - scaled.total_loss.numpy()) > 1e-3


def _random_steps(seed, num_steps, batch):
  """(previous actions, rewards, observations) of `[T, B]` steps of a 3-action agent."""
  rng = np.random.default_rng(seed)
  return (tf.constant(rng.integers(0, 3, (num_steps, batch)), tf.int32),
          tf.constant(rng.normal(size=(num_steps, batch)), tf.float32),
          tf.constant(rng.normal(size=(num_steps, batch, 6)), tf.float32))


def test_unroll_matches_steps_and_resets_on_done():
  agent = vtrace_networks.ActorCriticAgent(3, networks.MLPTorso([8]), lstm_size=5)
  num_steps, batch = 4, 2
  prev_actions, rewards, observations = _random_steps(1, num_steps, batch)
  dones = tf.constant([[False, False], [False, True], [False, False], [True, False]])
  state = agent.initial_state(batch)
  state = tf.nest.map_structure(lambda s: s + 0.3, state)
  unrolled, _ = agent.unroll(prev_actions, rewards, dones, observations, state)
  stepped_logits = []
  for t in range(num_steps):
    out, state = agent.step(prev_actions[t], rewards[t], dones[t], observations[t], state)
    stepped_logits.append(out.policy_logits)
  np.testing.assert_allclose(unrolled.policy_logits.numpy(),
                             tf.stack(stepped_logits).numpy(), rtol=1e-5, atol=1e-6)
  assert unrolled.baseline.shape == (num_steps, batch)


def test_feed_forward_agent_sees_only_the_current_step():
  agent = vtrace_networks.ActorCriticAgent(3, networks.MLPTorso([8]), lstm_size=0)
  num_steps, batch = 3, 2
  prev_actions, rewards, observations = _random_steps(2, num_steps, batch)
  dones = tf.zeros((num_steps, batch), tf.bool)
  unrolled, final_state = agent.unroll(prev_actions, rewards, dones, observations,
                                       agent.initial_state(batch))
  np.testing.assert_array_equal(final_state.numpy(), np.zeros((batch, 1)))
  # Each step alone, from any state, gives the unroll's output at that step: no memory.
  for t in reversed(range(num_steps)):
    out, _ = agent.step(prev_actions[t], rewards[t], dones[t], observations[t],
                        agent.initial_state(batch) + 5.0)
    np.testing.assert_allclose(out.policy_logits.numpy(), unrolled.policy_logits[t].numpy(),
                               rtol=1e-5, atol=1e-6)
  assert unrolled.policy_logits.numpy().std(axis=0).min() > 0  # It does see its inputs.


@pytest.mark.parametrize('torso_class', [networks.AtariTorso, networks.ResNetTorso])
def test_centered_frames_ignore_a_uniform_brightness_change(torso_class):
  rng = np.random.default_rng(3)
  frames = rng.integers(40, 200, (2, 84, 84, 4)).astype(np.uint8)
  brighter = frames + np.uint8(30)  # The same screens, every pixel 30 levels up.
  centered = torso_class(hidden_size=16, center_frames=True)
  np.testing.assert_allclose(centered(brighter).numpy(), centered(frames).numpy(),
                             rtol=1e-4, atol=1e-5)
  plain = torso_class(hidden_size=16)
  assert np.abs(plain(brighter).numpy() - plain(frames).numpy()).max() > 1e-3


def test_resnet_torso_on_uint8_frames():
  agent = vtrace_networks.ActorCriticAgent(18, networks.ResNetTorso(), lstm_size=256)
  frames = tf.zeros((2, 84, 84), tf.uint8)
  out, state = agent.step(tf.zeros(2, tf.int32), tf.zeros(2), tf.zeros(2, tf.bool), frames,
                          agent.initial_state(2))
  assert out.policy_logits.shape == (2, 18)
  assert state.hidden.shape == (2, 256)


def test_atari_torso_agent_from_config_on_uint8_frames():
  from seed_graph.configs import atari_vtrace_fast  # pylint: disable=g-import-not-at-top
  network = atari_vtrace_fast.get_config().network
  network.compute_dtype = 'float32'  # bfloat16 needs oneDNN, off here (see test_layers).
  agent = vtrace_networks.make_agent(network, (84, 84), num_actions=18)
  frames = tf.zeros((3, 84, 84), tf.uint8)
  out, state = agent.step(tf.zeros(3, tf.int32), tf.zeros(3), tf.zeros(3, tf.bool), frames,
                          agent.initial_state(3))
  assert out.policy_logits.shape == (3, 18)
  assert state.shape == (3, 1)  # Feed-forward (lstm_size=0): one zero per environment.
  assert agent.torso_features(frames).shape == (3, network.torso_hidden_size)
  # The Nature convolutions: 8x8/4, 4x4/2, 3x3/1 leave 7x7x64 of an 84x84 frame.
  dense = [v for v in agent.trainable_variables if 'dense' in v.name and 'w:' in v.name]
  assert dense[0].shape == (7 * 7 * 64, network.torso_hidden_size)


def _np_log_softmax(x):
  x = x - x.max(-1, keepdims=True)
  return x - np.log(np.exp(x).sum(-1, keepdims=True))


def _np_clipped_surrogate(inputs, epsilon, normalize, discount=0.99, proximal_logits=None):
  """PPO's clipped surrogate on V-trace advantages, in NumPy, one step at a time, its
  clip centred on mu or on `proximal_logits` (decoupled PPO: each term weighted by
  min(1, pi_prox / mu)). Returns (loss, share of ratios outside the clip)."""
  logits = inputs['learner_outputs'].policy_logits.numpy()
  baseline = inputs['learner_outputs'].baseline.numpy()
  actions = inputs['actions'].numpy()
  rewards = inputs['rewards'].numpy()[1:]
  discounts = (~inputs['dones'].numpy()[1:]) * discount
  steps, batch = actions.shape[0] - 1, actions.shape[1]
  pick = lambda log_p: np.take_along_axis(log_p[:-1], actions[:-1, :, None], -1)[..., 0]
  rhos = np.exp(pick(_np_log_softmax(logits)) -
                pick(_np_log_softmax(inputs['behaviour_logits'].numpy())))
  values, bootstrap = baseline[:-1], baseline[-1]
  vs = np.zeros((steps, batch))
  for b in range(batch):
    acc, next_value = 0.0, bootstrap[b]
    for t in reversed(range(steps)):
      delta = min(1.0, rhos[t, b]) * (rewards[t, b] + discounts[t, b] * next_value
                                       - values[t, b])
      acc = delta + discounts[t, b] * min(1.0, rhos[t, b]) * acc
      vs[t, b] = values[t, b] + acc
      next_value = values[t, b]
  vs_next = np.concatenate([vs[1:], bootstrap[None]], 0)
  advantages = rewards + discounts * vs_next - values
  if normalize:
    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
  ratios, weights = rhos, 1.0
  if proximal_logits is not None:
    proximal_rhos = np.exp(pick(_np_log_softmax(proximal_logits)) -
                           pick(_np_log_softmax(inputs['behaviour_logits'].numpy())))
    ratios, weights = rhos / proximal_rhos, np.minimum(1.0, proximal_rhos)
  clipped = np.clip(ratios, 1 - epsilon, 1 + epsilon)
  loss = -np.mean(weights * np.minimum(ratios * advantages, clipped * advantages))
  return loss, np.mean(np.abs(ratios - 1) > epsilon)


@pytest.mark.parametrize('normalize', [False, True])
def test_clipped_surrogate_matches_numpy(normalize):
  inputs = _inputs(num_steps=7, batch=4, seed=5)
  terms = _loss(**inputs, policy_clip=0.2, normalize_advantages=normalize)
  expected_loss, expected_clipped = _np_clipped_surrogate(inputs, 0.2, normalize)
  np.testing.assert_allclose(terms.policy_loss.numpy(), expected_loss, rtol=1e-4,
                             atol=1e-6)
  np.testing.assert_allclose(terms.clip_fraction.numpy(), expected_clipped, rtol=1e-6)
  assert 0 < expected_clipped < 1
  impala_policy = _loss(**inputs).policy_loss.numpy()
  assert abs(impala_policy - terms.policy_loss.numpy()) > 1e-4


def test_a_clip_centred_on_a_proximal_policy_matches_numpy():
  inputs = _inputs(num_steps=7, batch=4, seed=11)
  proximal = np.random.default_rng(12).normal(size=(7, 4, 4)).astype(np.float32)
  terms = _loss(**inputs, policy_clip=0.2, proximal_logits=tf.constant(proximal))
  expected_loss, expected_clipped = _np_clipped_surrogate(inputs, 0.2, False,
                                                          proximal_logits=proximal)
  np.testing.assert_allclose(terms.policy_loss.numpy(), expected_loss, rtol=1e-4,
                             atol=1e-6)
  np.testing.assert_allclose(terms.clip_fraction.numpy(), expected_clipped, rtol=1e-6)
  assert abs(expected_loss - _np_clipped_surrogate(inputs, 0.2, False)[0]) > 1e-3
  # Centred on mu itself, it is APPO's surrogate: every weight 1.
  at_mu = _loss(**inputs, policy_clip=0.2, proximal_logits=inputs['behaviour_logits'])
  np.testing.assert_allclose(at_mu.policy_loss.numpy(),
                             _loss(**inputs, policy_clip=0.2).policy_loss.numpy(), rtol=1e-5)
  # The value and entropy terms do not depend on the centre.
  assert terms.baseline_loss.numpy() == at_mu.baseline_loss.numpy()


def test_behaviour_kl_matches_numpy_and_is_zero_on_policy():
  inputs = _inputs(num_steps=5, batch=3, seed=9)
  log_mu = _np_log_softmax(inputs['behaviour_logits'].numpy()[:-1])
  log_pi = _np_log_softmax(inputs['learner_outputs'].policy_logits.numpy()[:-1])
  expected = np.mean(np.sum(np.exp(log_mu) * (log_mu - log_pi), -1))
  np.testing.assert_allclose(_loss(**inputs).behaviour_kl.numpy(), expected, rtol=1e-5)
  on_policy = dict(inputs, behaviour_logits=inputs['learner_outputs'].policy_logits)
  np.testing.assert_allclose(_loss(**on_policy).behaviour_kl.numpy(), 0.0, atol=1e-6)


def test_on_policy_the_clipped_surrogate_has_the_policy_gradient():
  """pi = mu: every ratio is 1, inside the clip, so the surrogate's gradient is IMPALA's
  policy gradient (whose advantages then carry no importance weight either)."""
  inputs = _inputs(num_steps=5, batch=3, seed=7)
  logits = tf.Variable(inputs['learner_outputs'].policy_logits)

  def gradient(**options):
    with tf.GradientTape() as tape:
      outputs = inputs['learner_outputs']._replace(policy_logits=logits.read_value())
      on_policy = dict(inputs, learner_outputs=outputs,
                       behaviour_logits=tf.stop_gradient(logits.read_value()))
      loss = _loss(**on_policy, **options).policy_loss
    return tape.gradient(loss, logits).numpy()

  surrogate = gradient(policy_clip=0.1)
  assert np.abs(surrogate).sum() > 0
  np.testing.assert_allclose(surrogate, gradient(), rtol=1e-4, atol=1e-7)
