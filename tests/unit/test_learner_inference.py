"""The learner's inference edge with real gRPC streams and real actors (no Launchpad)."""

import threading
import time

import grpc
import numpy as np
import portpicker
import pytest
import tensorflow as tf

from seed_graph.config import id_ranges
from seed_graph.inference import messages
from seed_graph.inference import wire
from seed_graph.nodes import actor as actor_lib
from seed_graph.nodes.learner import shell as learner_lib
from seed_graph.nodes.learner import client as learner_client
from seed_graph.algos.vtrace import learning as vtrace_learner
from tests import helpers


class _EchoVTrace(vtrace_learner.VTrace):
  """V-trace whose action is read off the observation, so a caller can tell whether it
  got its own rows back."""

  def act(self, prev_actions, rewards, dones, observations, core_state, is_eval):
    actions = tf.cast(observations[:, 0], tf.int32)
    logits = tf.zeros([tf.shape(observations)[0], 2])
    return actions, logits, core_state


@pytest.fixture
def learner(tmp_path):
  node = helpers.serving_vtrace_learner(tmp_path)
  yield node
  node.shutdown()


@pytest.fixture
def unbounded_learner(tmp_path):
  """Nobody trains here: a queue that never fills keeps back-pressure out of the test
  (back-pressure has its own test)."""
  node = helpers.serving_vtrace_learner(tmp_path, **{'learner.queue_capacity': 10_000})
  yield node
  node.shutdown()


def _client(learner):
  return learner_client.LearnerClient('localhost:1', learner.address)


def _request(env_ids, observations, run_id=1, is_eval=False, rewards=None, dones=None):
  env_ids = np.asarray(env_ids, np.int32)
  rows = len(env_ids)
  return messages.encode_request(
      env_ids, np.full(rows, run_id, np.int64),
      np.zeros(rows, np.float32) if rewards is None else rewards,
      np.zeros(rows, bool) if dones is None else dones, np.zeros(rows, bool),
      np.asarray(observations, np.float32), is_eval)


def _unrolls(learner):
  return learner.algorithm.unroll_queue


def test_each_caller_gets_its_own_actions(tmp_path):
  learner = helpers.serving_vtrace_learner(tmp_path, _EchoVTrace,
                                           **{'learner.queue_capacity': 10_000})
  errors = []

  def caller(actor_index):
    stream = _client(learner).inference.open_stream()
    env_ids = np.arange(4 * actor_index, 4 * actor_index + 4)
    try:
      for step in range(40):
        marks = 1000 * actor_index + 10 * step + np.arange(4)
        observations = np.stack([marks, np.zeros(4), np.zeros(4), np.zeros(4)], axis=1)
        actions = messages.decode_actions(stream.infer(_request(env_ids, observations)))
        np.testing.assert_array_equal(actions, marks)
    except Exception as e:  # pylint: disable=broad-except
      errors.append(e)
    finally:
      stream.close()

  threads = [threading.Thread(target=caller, args=(i,)) for i in range(2)]
  for t in threads:
    t.start()
  for t in threads:
    t.join(timeout=60)
  learner.shutdown()
  assert not any(t.is_alive() for t in threads)
  assert not errors, errors
  assert learner.get_stats()['inference_rows'] == 2 * 40 * 4
  # Some batches held both callers' requests.
  assert learner.get_stats()['inference_batches'] < 2 * 40


def test_actors_and_evaluator_fill_the_unroll_queue(unbounded_learner):
  learner = unbounded_learner
  stop = threading.Event()
  client = _client(learner)
  actors = [actor_lib.Actor(client, learner.config.env, [0, 1, 2, 3], seed=1, max_steps=12,
                            stop_event=stop),
            actor_lib.Actor(client, learner.config.env, [4, 5, 6, 7], seed=2, max_steps=12,
                            stop_event=stop),
            actor_lib.Actor(client, learner.config.env, [8, 9], seed=3, is_eval=True,
                            max_steps=12, stop_event=stop)]
  threads = [threading.Thread(target=a.run) for a in actors]
  for t in threads:
    t.start()
  for t in threads:
    t.join(timeout=60)
  assert not any(t.is_alive() for t in threads)
  assert [a.steps for a in actors] == [12, 12, 12]
  # 12 steps with unrolls of 5 (+1 overlap): 2 unrolls per training env, none for eval.
  assert _unrolls(learner).qsize() == 8 * 2
  assert learner.get_stats()['frames'] == 8 * 12
  # Batches of several sizes ran, all on the one graph traced when the learner was built.
  assert learner.policies[0].traces == 1


def test_group_slices_cover_every_environment_once():
  for envs, groups in [(1, 1), (4, 4), (7, 3), (32, 2)]:
    slices = id_ranges.env_group_slices(envs, groups)
    assert len(slices) == groups
    assert sum((list(range(envs))[s] for s in slices), []) == list(range(envs))


def test_pipelined_actor_gives_the_same_unrolls_as_one_group(unbounded_learner):
  # Two groups of 2 envs on separate streams: each env still advances one step per
  # answer, so the counts match a one-group actor exactly.
  learner = unbounded_learner
  worker = actor_lib.Actor(_client(learner), learner.config.env, [0, 1, 2, 3], seed=1,
                           max_steps=12, stop_event=threading.Event(), env_groups=2)
  worker.run()
  assert worker.steps == 12
  assert _unrolls(learner).qsize() == 4 * 2
  assert learner.get_stats()['frames'] == 4 * 12
  # Requests carried 2 rows each (one group), never the whole batch of 4.
  assert learner.get_stats()['inference_rows'] == 4 * 12
  assert learner.get_stats()['inference_batches'] >= 12
  unrolls = [_unrolls(learner).get() for _ in range(8)]
  assert sorted(u.env_id for u in unrolls) == [0, 0, 1, 1, 2, 2, 3, 3]
  for unroll in unrolls:
    assert unroll.steps['observations'].shape[0] == learner.config.learner.unroll_length + 1


def test_malformed_message_fails_only_that_caller(learner):
  good = _client(learner).inference.open_stream()
  bad = _client(learner).inference.open_stream()
  observations = np.zeros((4, 4), np.float32)
  good.infer(_request([0, 1, 2, 3], observations))
  with pytest.raises(grpc.RpcError) as error:
    bad.infer(b'not a message at all')
  assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
  assert 'bad magic' in error.value.details()
  # The server and the other stream keep going.
  actions = messages.decode_actions(good.infer(_request([0, 1, 2, 3], observations)))
  assert actions.shape == (4,)
  good.close()


@pytest.mark.parametrize('request_bytes,needle', [
    (_request([0, 1], np.zeros((2, 3))), 'observations: shape'),
    (_request([0, 99], np.zeros((2, 4))), 'env_ids: training ids must be in'),
    (_request([0, 0], np.zeros((2, 4))), 'duplicate'),
    (_request([0, 1], np.zeros((2, 4)), is_eval=True), 'evaluation ids'),
    (_request([0, 1], np.zeros((2, 4)), run_id=0), 'run_ids'),
    (wire.encode({'env_ids': np.zeros(2, np.int64)}), 'env_ids: dtype'),
])
def test_invalid_requests_are_named(learner, request_bytes, needle):
  stream = _client(learner).inference.open_stream()
  with pytest.raises(grpc.RpcError) as error:
    stream.infer(request_bytes)
  assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
  assert needle in error.value.details()


def test_full_queue_blocks_inference_without_dropping(learner):
  stop = threading.Event()
  client = _client(learner)
  worker = actor_lib.Actor(client, learner.config.env, [0, 1, 2, 3], seed=1,
                           max_steps=200, stop_event=stop)
  thread = threading.Thread(target=worker.run)
  thread.start()
  # Capacity 8 unrolls; 4 envs make 4 unrolls every 5 steps, so it fills in ~11 steps.
  deadline = time.time() + 30
  while _unrolls(learner).qsize() < 8 and time.time() < deadline:
    time.sleep(0.05)
  time.sleep(0.5)
  stalled_at = worker.steps
  time.sleep(0.5)
  assert worker.steps == stalled_at  # Blocked by back-pressure.
  assert stalled_at < 200
  drained = [_unrolls(learner).get() for _ in range(8)]
  deadline = time.time() + 30
  while worker.steps <= stalled_at + 2 and time.time() < deadline:
    time.sleep(0.05)
  assert worker.steps > stalled_at  # Resumed once the learner caught up.
  # Nothing was dropped: every env's unrolls are consecutive (overlap by one step).
  by_env = {}
  while not _unrolls(learner).empty():
    drained.append(_unrolls(learner).get())
  for unroll in drained:
    by_env.setdefault(unroll.env_id, []).append(unroll)
  for unrolls in by_env.values():
    for first, second in zip(unrolls, unrolls[1:]):
      np.testing.assert_array_equal(first.steps['observations'][-1],
                                    second.steps['observations'][0])
  stop.set()
  _unrolls(learner).queue.clear()
  thread.join(timeout=30)


@pytest.mark.parametrize('env_groups', [1, 2])
def test_actor_survives_learner_restart(tmp_path, env_groups):
  config = helpers.small_cartpole_config(tmp_path)
  port = portpicker.pick_unused_port()
  client = learner_client.LearnerClient('localhost:1', f'localhost:{port}')
  stop = threading.Event()
  worker = actor_lib.Actor(client, config.env, [0, 1, 2, 3], seed=1, stop_event=stop,
                           max_backoff_seconds=0.5, env_groups=env_groups)
  thread = threading.Thread(target=worker.run)
  thread.start()  # Before the learner exists: it waits for the server.
  first = learner_lib.Learner(config, vtrace_learner.VTrace)
  first.serve(port)
  deadline = time.time() + 30
  while worker.steps < 5 and time.time() < deadline:
    time.sleep(0.05)
  assert worker.steps >= 5
  first.shutdown()
  second = learner_lib.Learner(config, vtrace_learner.VTrace)
  second.serve(port)
  resumed_from = worker.steps
  deadline = time.time() + 30
  while worker.steps < resumed_from + 5 and time.time() < deadline:
    time.sleep(0.05)
  stop.set()
  thread.join(timeout=30)
  second.shutdown()
  assert worker.steps >= resumed_from + 5
  assert worker.reconnects >= 1


@pytest.mark.parametrize('jit_compile', [False, True])
def test_training_unroll_reproduces_inference_logits(tmp_path, jit_compile):
  """The learner's unroll from a stored state sees exactly what inference saw, whether
  inference ran as a TF graph or as an XLA program (training is never XLA here)."""
  config = helpers.small_cartpole_config(tmp_path, **{'inference.jit_compile': jit_compile})
  config.learner.queue_capacity = 10_000  # Nobody trains here.
  node = learner_lib.Learner(config, vtrace_learner.VTrace)
  rng = np.random.default_rng(3)
  env_ids = np.arange(8, dtype=np.int32)
  for step in range(23):
    dones = rng.random(8) < 0.15
    request = messages.InferenceRequest(
        env_ids, np.full(8, 11 if step < 9 else 12, np.int64),  # Run-id change at step 9.
        rng.random(8).astype(np.float32), dones, np.zeros(8, bool),
        rng.normal(size=(8, 4)).astype(np.float32), False, dones)
    node.infer_batch([request])
  unrolls = list(node.algorithm.unroll_queue.queue)
  assert len(unrolls) >= 16
  steps, initial = node.algorithm.stack(unrolls)
  outputs = node.algorithm.unroll(steps, initial)
  np.testing.assert_allclose(outputs.policy_logits.numpy(), steps['behaviour_logits'],
                             atol=1e-5)
