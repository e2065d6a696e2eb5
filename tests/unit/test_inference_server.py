"""The learner's inference server parts without a learner: traced policies, padding,
and the request/response contract."""

import numpy as np
import pytest
import tensorflow as tf

from seed_graph.inference import messages
from seed_graph.inference import server
from seed_graph.inference import wire


def test_jit_compiled_inference_matches_the_graph_for_every_batch_size():
  weights = tf.constant(np.random.default_rng(0).normal(size=(5, 3)), tf.float32)

  def policy(observations, state):
    hidden = tf.tanh(tf.matmul(observations, weights) + state['bias'])
    return tf.argmax(hidden, axis=-1, output_type=tf.int32), hidden

  example = (tf.zeros((1, 5)), {'bias': tf.zeros((1, 3))})
  plain = server.trace_for_any_batch(policy, *example)
  compiled = server.trace_for_any_batch(policy, *example, jit_compile=True,
                                            batch_sizes=[2, 4])
  rng = np.random.default_rng(1)
  for rows in (2, 4, 3):  # 3 is not a precompiled size: compiled on first use.
    inputs = (rng.normal(size=(rows, 5)).astype(np.float32),
              {'bias': rng.normal(size=(rows, 3)).astype(np.float32)})
    expected_actions, expected_hidden = plain(*inputs)
    actions, hidden = compiled(*inputs)
    np.testing.assert_array_equal(actions.numpy(), expected_actions.numpy())
    np.testing.assert_allclose(hidden.numpy(), expected_hidden.numpy(), atol=1e-5)


@pytest.mark.parametrize('jit_compile,buckets', [(True, [1, 2, 4, 8, 16]), (False, [])])
def test_padded_policy_answers_every_batch_size_from_one_trace(jit_compile, buckets):
  weights = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
  policy = server.PaddedPolicy(lambda x: (tf.matmul(x, weights), x[:, 0]),
                               (tf.zeros((1, 2)),), max_rows=16, jit_compile=jit_compile)
  assert policy.buckets == buckets  # XLA compiles per shape; a TF graph takes any rows.
  for rows in (1, 3, 5, 16):
    inputs = np.random.default_rng(rows).normal(size=(rows, 2)).astype(np.float32)
    product, first = policy(inputs)
    assert isinstance(product, np.ndarray) and product.shape == (rows, 3)
    np.testing.assert_allclose(product, inputs @ weights.numpy(), rtol=1e-6)
    np.testing.assert_array_equal(first, inputs[:, 0])
  assert policy.traces == 1


def _parser():
  return messages.RequestParser((3,), np.float32, num_training_envs=4, num_envs=6,
                                max_rows=4)


def test_requests_round_trip_merge_and_split():
  parse = _parser()
  first = parse(messages.encode_request(
      np.array([0, 1], np.int32), np.array([5, 5], np.int64), np.ones(2, np.float32),
      np.array([False, True]), np.zeros(2, bool), np.zeros((2, 3), np.float32), False))
  second = parse(messages.encode_request(
      np.array([4], np.int32), np.array([7], np.int64), np.zeros(1, np.float32),
      np.zeros(1, bool), np.zeros(1, bool), np.ones((1, 3), np.float32), True))
  assert first.is_eval is False and second.is_eval is True
  merged = messages.merge_requests([first, second])
  assert merged.env_ids.tolist() == [0, 1, 4]
  assert merged.is_eval.tolist() == [False, False, True]
  assert merged.observations.shape == (3, 3)
  parts = messages.split_rows(np.array([10, 11, 12]), [first, second])
  assert [p.tolist() for p in parts] == [[10, 11], [12]]
  actions = messages.decode_actions(messages.encode_actions(np.array([2, 0], np.int64)))
  assert actions.dtype == np.int32 and actions.tolist() == [2, 0]


def test_a_response_without_actions_is_refused():
  with pytest.raises(wire.WireFormatError, match='actions'):
    messages.decode_actions(wire.encode({'other': np.zeros(2, np.int32)}))
