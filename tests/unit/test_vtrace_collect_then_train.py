"""V-trace without `learner.collect_while_training`: actors wait from the moment a batch
is complete until it is trained, so the policy lag is only the batch's own gradient
steps (PPO's collect-then-train on SEED's central inference)."""

import threading

import numpy as np

from seed_graph.algos.vtrace import learning as vtrace_learner
from seed_graph.nodes.learner import shell as learner_lib
from tests import helpers


def _learner_with_a_batch(tmp_path, collect_while_training):
  """A learner whose next batch (4 unrolls of its own inference) has just been taken."""
  config = helpers.small_cartpole_config(tmp_path, **{
      'learner.batch_size': 4, 'learner.epochs': 2, 'learner.minibatches': 2,
      'learner.policy_clip': 0.1, 'learner.collect_while_training': collect_while_training})
  learner = learner_lib.Learner(config, vtrace_learner.VTrace)
  for unroll in helpers.queued_vtrace_unrolls(learner, np.random.default_rng(0)):
    learner.algorithm.unroll_queue.put(unroll)
  batch = learner.algorithm.next_batch()
  assert len(batch) == 4
  return learner, batch


def _inference_in_a_thread(learner):
  done = threading.Event()
  def step():
    helpers.vtrace_inference_step(learner, np.random.default_rng(1))
    done.set()
  threading.Thread(target=step, daemon=True).start()
  return done


def test_actors_wait_while_the_batch_trains_and_act_once_it_is_trained(tmp_path):
  learner, batch = _learner_with_a_batch(tmp_path, collect_while_training=False)
  acted = _inference_in_a_thread(learner)
  assert not acted.wait(1.5)
  figures = learner.algorithm.train(batch)
  assert acted.wait(30)
  # Actions of policy 0, trained by policies 0-3 (2 epochs of 2 minibatches).
  assert figures['policy_lag'] == 1.5


def test_by_default_actors_act_while_a_batch_trains(tmp_path):
  learner, _ = _learner_with_a_batch(tmp_path, collect_while_training=True)
  assert _inference_in_a_thread(learner).wait(30)


def test_a_stopping_learner_lets_waiting_inference_through(tmp_path):
  learner, _ = _learner_with_a_batch(tmp_path, collect_while_training=False)
  acted = _inference_in_a_thread(learner)
  assert not acted.wait(1.0)
  learner.stop()
  assert acted.wait(30)
