"""`network.initialization`: Sonnet's fan-in weights, or CleanRL's orthogonal ones."""

import math

import numpy as np
import tensorflow as tf

from seed_graph.algos.vtrace import networks as vtrace_networks


def _atari_network(initialization):
  from seed_graph.configs import atari_vtrace_fast  # pylint: disable=g-import-not-at-top
  network = atari_vtrace_fast.get_config().network
  network.compute_dtype = 'float32'  # bfloat16 needs oneDNN, off here (see test_layers).
  network.initialization = initialization
  return network


def _agent_weights(initialization, num_actions=4):
  tf.random.set_seed(0)
  agent = vtrace_networks.make_agent(_atari_network(initialization), (84, 84, 4),
                                     num_actions)
  frames = tf.zeros((1, 84, 84, 4), tf.uint8)
  agent.step(tf.zeros(1, tf.int32), tf.zeros(1), tf.zeros(1, tf.bool), frames,
             agent.initial_state(1))
  return agent, {v.name.split(':')[0]: v.numpy() for v in agent.trainable_variables}


def _as_matrix(weights):
  return weights.reshape(-1, weights.shape[-1])  # [fan-in, outputs]


def _named(weights, fragment):
  (name,) = [n for n in weights if fragment in n and n.endswith('/w')]
  return _as_matrix(weights[name])


def test_orthogonal_gives_orthogonal_weights_of_the_configured_gains():
  _, weights = _agent_weights('orthogonal')
  for fragment in ('conv_0', 'conv_1', 'conv_2', 'dense'):
    w = _named(weights, fragment)  # Every one has fan-in >= outputs: orthogonal columns.
    np.testing.assert_allclose(w.T @ w, 2.0 * np.eye(w.shape[1]), atol=1e-4)
  policy, baseline = _named(weights, 'policy_logits'), _named(weights, 'baseline')
  np.testing.assert_allclose(policy.T @ policy, 1e-4 * np.eye(4), atol=1e-8)
  np.testing.assert_allclose(baseline.T @ baseline, [[1.0]], atol=1e-5)
  assert all(np.all(v == 0) for n, v in weights.items() if n.endswith('/b'))


def test_fan_in_keeps_sonnets_weights():
  _, weights = _agent_weights('fan_in')
  w = _named(weights, 'conv_1')  # 4x4x32 inputs: stddev 1/sqrt(512), truncated at 2.
  assert abs(w.std() - 0.88 / math.sqrt(512)) < 0.1 / math.sqrt(512)
  gram = w.T @ w
  assert np.abs(gram - np.diag(np.diag(gram))).max() > 0.1  # Not orthogonal.


def test_orthogonal_first_policy_is_nearly_uniform_on_real_looking_frames():
  frames = tf.constant(np.random.default_rng(1).integers(0, 255, (8, 84, 84, 4)), tf.uint8)
  spreads = {}
  for initialization in ('fan_in', 'orthogonal'):
    agent, _ = _agent_weights(initialization)
    out, _ = agent.step(tf.zeros(8, tf.int32), tf.zeros(8), tf.zeros(8, tf.bool), frames,
                        agent.initial_state(8))
    spreads[initialization] = float(tf.reduce_max(tf.math.reduce_std(out.policy_logits, -1)))
  assert spreads['orthogonal'] < 0.02 < spreads['fan_in']

