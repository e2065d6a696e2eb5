"""V-trace (IMPALA) as the learner shell's algorithm: an actor-critic agent that samples
from its policy for training environments and acts greedily (or with
`evaluators.epsilon`) for evaluation ones; training environments' steps are cut into
unrolls (`unrolls.py`), queued, and trained on in batches with the V-trace loss
(`loss.py`).

The unroll queue is bounded (`learner.queue_capacity`): when training falls behind,
recording blocks, so inference and every actor wait rather than drop data. Without
`learner.collect_while_training`, inference also waits from the moment a batch is
complete until it is trained: collect, then train, as PPO does. A batch is
trained on `learner.epochs` times, each time in `learner.minibatches` gradient steps on
a random share of its unrolls (APPO; one step on the whole batch by default), PPO's
clip centred on the acting policy or on the batch's first (`learner.policy_clip_center`).
"""

import queue
import threading
from typing import Any, Sequence

import numpy as np
import tensorflow as tf
import ml_collections

from seed_graph.algos import base
from seed_graph.algos import hyperparameters as hyperparameters_lib
from seed_graph.algos.vtrace import loss
from seed_graph.algos.vtrace import networks
from seed_graph.algos.vtrace import unrolls as unrolls_lib


class VTrace(base.Algorithm):
  """See the module docstring; `VTrace(config, context)`."""

  def __init__(self, config: ml_collections.ConfigDict, context: base.AlgorithmContext):
    self._config = config
    self._devices = context.devices
    self._stop = context.stop_event
    info = context.spec
    self._num_actions = info.num_actions
    learner = config.learner
    self.agent = networks.make_agent(config.network, info.observation_shape,
                                     info.num_actions)
    frames_per_batch = learner.batch_size * learner.unroll_length * info.frames_per_step
    # The optimizer's step counter drives the decay: one count per gradient step.
    final_step = max(1, config.total_environment_frames // frames_per_batch
                     * learner.epochs * learner.minibatches)
    self.hyperparameters = hyperparameters_lib.Hyperparameters(
        {'learning_rate': learner.learning_rate, 'entropy_cost': learner.entropy_cost})
    self._step_size = hyperparameters_lib.ScaledLinearDecay(
        self.hyperparameters['learning_rate'],
        final_step if learner.learning_rate_decay else None)
    self._optimizer = tf.keras.optimizers.Adam(
        self._step_size, beta_1=learner.adam_beta1, beta_2=learner.adam_beta2,
        epsilon=learner.adam_epsilon)

    zeros = lambda shape, dtype: tf.zeros((1,) + tuple(shape), dtype)
    self._state_template = self.agent.initial_state(1)
    self._example_inputs = (zeros((), tf.int32), zeros((), tf.float32), zeros((), tf.bool),
                            zeros(info.observation_shape, info.observation_dtype),
                            self._state_template, zeros((), tf.bool))
    self.agent.step(*self._example_inputs[:5])  # Creates the variables.
    self._unroll_builder = unrolls_lib.UnrollBuilder(
        context.num_envs, learner.unroll_length, info.observation_shape,
        info.observation_dtype, info.num_actions,
        [tuple(s.shape[1:]) for s in tf.nest.flatten(self._state_template)])
    self.unroll_queue = queue.Queue(maxsize=learner.queue_capacity)
    self._pending = []
    self._train_fn = tf.function(self._train_step)
    self._policy_logits_fn = tf.function(
        lambda steps, state: self._unroll_with_state(steps, state)[0].policy_logits)
    self._rng = np.random.default_rng(config.seed)
    # Gradient steps taken by this process: the version of the policy inference uses.
    self._policy_version = 0
    # Cleared while a batch trains when the actors may not act then.
    self._may_act = threading.Event()
    self._may_act.set()

  # ---- Inference ------------------------------------------------------------------

  def example_policy_inputs(self):
    return self._example_inputs

  def act(self, prev_actions: tf.Tensor, rewards: tf.Tensor, dones: tf.Tensor,
          observations: tf.Tensor, core_state: Any, is_eval: tf.Tensor):
    outputs, new_state = self.agent.step(prev_actions, rewards, dones, observations,
                                         core_state)
    logits = outputs.policy_logits
    batch = tf.shape(logits)[0]
    sampled = tf.random.categorical(logits, 1, dtype=tf.int32)[:, 0]
    greedy = tf.argmax(logits, axis=-1, output_type=tf.int32)
    explore = tf.random.uniform([batch]) < self._config.evaluators.epsilon
    random_actions = tf.random.uniform([batch], 0, self._num_actions, dtype=tf.int32)
    eval_actions = tf.where(explore, random_actions, greedy)
    return tf.where(is_eval, eval_actions, sampled), logits, new_state

  def checkpoint_items(self):
    return {'agent': self.agent, 'optimizer': self._optimizer}

  def reset(self, env_ids: np.ndarray):
    self._unroll_builder.reset(env_ids)

  def policy_inputs(self, step, new_run):
    return step.observations, step.is_eval

  def record(self, step: base.InferenceStep, training: np.ndarray, prev_actions: np.ndarray,
             actions: np.ndarray, logits: np.ndarray, states_before: Sequence[np.ndarray]):
    unrolls = self._unroll_builder.record(step.env_ids[training], {
        'prev_actions': prev_actions[training], 'rewards': step.rewards[training],
        'dones': step.dones[training], 'truncations': step.truncations[training],
        'observations': step.observations[training],
        'actions': actions[training], 'behaviour_logits': logits[training],
        'policy_versions': np.full(np.count_nonzero(training), self._policy_version),
    }, [s[training] for s in states_before])
    for unroll in unrolls:
      self._enqueue(unroll)

  def wait_to_act(self):
    while not self._may_act.wait(0.5) and not self._stop.is_set():
      continue

  def _enqueue(self, unroll):
    # Blocking put: when training falls behind, inference (and so every actor) waits.
    while not self._stop.is_set():
      try:
        self.unroll_queue.put(unroll, timeout=0.5)
        return
      except queue.Full:
        continue

  # ---- Training -------------------------------------------------------------------

  def next_batch(self):
    while len(self._pending) < self._config.learner.batch_size:
      try:
        self._pending.append(self.unroll_queue.get(timeout=0.5))
      except queue.Empty:
        return None
    batch, self._pending = self._pending, []
    if not self._config.learner.collect_while_training:
      self._may_act.clear()  # Until `train` is done with this batch.
    return batch

  def stack(self, unrolls):
    """Unrolls as time-major training inputs: (steps, initial core state)."""
    steps, states = unrolls_lib.stack_unrolls(unrolls)
    return steps, tf.nest.pack_sequence_as(self._state_template, states)

  def unroll(self, steps, initial_state: Any):
    """The agent's outputs over stacked steps, as training computes them."""
    return self._unroll_with_state(steps, initial_state)[0]

  def _unroll_with_state(self, steps, initial_state: Any):
    return self.agent.unroll(steps['prev_actions'], steps['rewards'], steps['dones'],
                             steps['observations'], initial_state)

  def train(self, batch):
    try:
      return self._train_epochs(batch)
    finally:
      self._may_act.set()

  def _train_epochs(self, batch):
    learner = self._config.learner
    steps, states = self.stack(batch)
    versions = steps.pop('policy_versions')
    if learner.policy_clip and learner.policy_clip_center == 'batch_start':
      # The clip's centre for every epoch: the policy before the batch's first step.
      steps['proximal_logits'] = np.asarray(
          self._policy_logits_fn(steps, states), np.float32)
    size = learner.batch_size // learner.minibatches
    applied, figures = True, []
    for _ in range(learner.epochs):
      order = self._rng.permutation(learner.batch_size)
      for start in range(0, learner.batch_size, size):
        rows = order[start:start + size]
        if size == learner.batch_size:
          minibatch = (steps, states)
        else:
          minibatch = (tf.nest.map_structure(lambda x, r=rows: x[:, r], steps),
                       tf.nest.map_structure(lambda x, r=rows: np.take(x, r, 0), states))
        # Time-major steps split along the batch axis 1, initial states along 0.
        terms = self._train_fn(self._devices.distribute(minibatch, batch_axes=(1, 0)))
        figures.append({k: float(v) for k, v in terms.items()})
        # Gradient steps between the policies that chose the actions and the one trained.
        figures[-1]['policy_lag'] = self._policy_version - float(
            np.mean(versions[:-1, rows]))
        applied = applied and bool(figures[-1]['update_applied'])
        self._policy_version += int(figures[-1]['update_applied'])
    means = {k: float(np.mean([f[k] for f in figures])) for k in figures[0]}
    means['update_applied'] = applied
    # What Adam applies now: `hyperparameter/learning_rate` times the decay.
    means['learning_rate_applied'] = float(self._step_size(self._optimizer.iterations))
    return means

  def _loss(self, steps, initial_state: Any):
    learner = self._config.learner
    outputs, final_state = self._unroll_with_state(steps, initial_state)
    terms = loss.impala_loss(
        outputs, steps['behaviour_logits'], steps['actions'],
        steps['rewards'], steps['dones'], truncations=steps['truncations'],
        discount=learner.discount, baseline_cost=learner.baseline_cost,
        entropy_cost=self.hyperparameters['entropy_cost'],
        reward_clipping=learner.reward_clipping,
        reward_scale=learner.reward_scale, lambda_=learner.lambda_,
        clip_rho_threshold=learner.clip_rho_threshold,
        clip_pg_rho_threshold=learner.clip_pg_rho_threshold,
        policy_clip=learner.policy_clip,
        normalize_advantages=learner.normalize_advantages,
        proximal_logits=steps.get('proximal_logits'))
    means = terms._asdict()
    # Mean |state| of the core after the unroll. An LSTM cell in the tens or hundreds has
    # saturated gates and ignores its inputs (the Pong runs' failure): watch it grow.
    means['core_state_magnitude'] = tf.add_n(
        [tf.reduce_mean(tf.abs(s)) for s in tf.nest.flatten(final_state)]) / len(
            tf.nest.flatten(final_state))
    return terms.total_loss, means, {}

  def _train_step(self, shards):
    result, _, gradient_norm, applied = self._devices.gradient_step(
        self._loss, self.agent.trainable_variables, self._optimizer,
        self._config.learner.gradient_clip_norm, shards)
    result['gradient_norm'] = gradient_norm
    result['update_applied'] = applied
    return result

  def stats(self):
    return {'unroll_queue_size': self.unroll_queue.qsize()}
