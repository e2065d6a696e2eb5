"""R2D2 as the learner shell's algorithm: recurrent Q-learning from prioritized replay.

Inference: per-environment epsilon-greedy on the online network, with frames stacked on
the learner (`frame_stack.py`). Training environment i of N explores with
0.4 ** (1 + 7 i / (N - 1)) (Ape-X); evaluation environments use `evaluators.epsilon`
and are never written to replay.

Replay edge: a `reverb.Client` (Launchpad dereferences the `ReverbNode` handle into
one). Training environments' steps go into it as overlapping sequences through one
`TrajectoryWriter` each (`sequences.py`), with initial priorities from the Q
values seen at inference; training samples through Reverb's TensorFlow dataset, and
sends new priorities back after every step. The target network is copied from the
online one every `learner.target_update_period` steps.

Checkpoints: the replay (Reverb's checkpointer, `<logdir>/replay`) is saved just before
the model; a restart with the same logdir restores both.
"""

import functools
import gc
import time
from typing import Any, Sequence

from absl import logging
import numpy as np
import reverb
import tensorflow as tf
import ml_collections

from seed_graph.algos import base
from seed_graph.algos.r2d2 import exploration
from seed_graph.algos.r2d2 import frame_stack
from seed_graph.algos.r2d2 import loss
from seed_graph.algos.r2d2 import networks
from seed_graph.algos.r2d2 import replay as replay_lib
from seed_graph.algos.r2d2 import sequences as sequences_lib


class R2D2(base.Algorithm):
  """See the module docstring; `R2D2(config, context, replay)`: `replay` is a
  `reverb.Client` or the replay server's address."""

  stacks_frames = True  # Replay stores single frames; they are stacked here.

  def __init__(self, config: ml_collections.ConfigDict, context: base.AlgorithmContext,
               replay):
    self._config = config
    self._devices = context.devices
    info = context.spec
    self._replay = replay if isinstance(replay, reverb.Client) else reverb.Client(replay)
    self._num_actions = info.num_actions
    self._num_training_envs = context.num_training_envs
    learner = config.learner
    self._layout = replay_lib.sequence_layout(config)
    self.network = networks.make_q_network(config.network, info.num_actions)
    self._target_network = networks.make_q_network(config.network, info.num_actions)
    stack = config.env.frame_stack
    network_shape = info.observation_shape + ((stack,) if stack > 1 else ())
    zeros = lambda shape, dtype: tf.zeros((1,) + tuple(shape), dtype)
    self._state_template = self.network.initial_state(1)
    self._example_inputs = (zeros((), tf.int32), zeros((), tf.float32), zeros((), tf.bool),
                            zeros(network_shape, info.observation_dtype),
                            self._state_template, zeros((), tf.float32))
    for network in (self.network, self._target_network):
      network.step(*self._example_inputs[:5])  # Creates the variables.
    self._update_target()
    self._state_sizes = networks.state_sizes(self.network)
    self._optimizer = tf.keras.optimizers.Adam(learner.learning_rate,
                                               epsilon=learner.adam_epsilon)

    num_envs = context.num_envs
    self._epsilons = np.concatenate([
        exploration.training_epsilons(self._num_training_envs, config.exploration.base,
                                        config.exploration.alpha),
        np.full(num_envs - self._num_training_envs, config.evaluators.epsilon, np.float32)])
    self._stacker = frame_stack.FrameStacker(num_envs, info.observation_shape,
                                             info.observation_dtype, stack)
    self._sequence_writer = sequences_lib.SequenceWriter(
        self._replay, replay_lib.TABLE, self._num_training_envs, self._layout,
        info.num_actions, config.replay.chunk_length,
        functools.partial(loss.initial_priorities, burn_in=learner.burn_in,
                          discount=learner.discount, n_step=learner.n_step,
                          eta=learner.priority_eta, rescale_eps=learner.value_rescale_eps),
        stop_event=context.stop_event)
    self._train_fn = tf.function(self._train_step)
    self._iterator = None
    self._pending_samples = []
    self.priority_updates = 0
    self._replay_size_at_start = None
    self._replay_size_at_checkpoint = None

  def _update_target(self):
    for target, online in zip(self._target_network.variables, self.network.variables):
      target.assign(online)

  def _split_state(self, flat_state):
    parts = tf.split(flat_state, self._state_sizes, axis=-1)
    return tf.nest.pack_sequence_as(self._state_template, parts)

  # ---- Inference ------------------------------------------------------------------

  def example_policy_inputs(self):
    return self._example_inputs

  def act(self, prev_actions: tf.Tensor, rewards: tf.Tensor, dones: tf.Tensor,
          observations: tf.Tensor, core_state: Any, epsilons):
    q_values, new_state = self.network.step(prev_actions, rewards, dones, observations,
                                            core_state)
    batch = tf.shape(q_values)[0]
    greedy = tf.argmax(q_values, axis=-1, output_type=tf.int32)
    explore = tf.random.uniform([batch]) < epsilons
    random_actions = tf.random.uniform([batch], 0, self._num_actions, dtype=tf.int32)
    return tf.where(explore, random_actions, greedy), q_values, new_state

  def checkpoint_items(self):
    return {'network': self.network, 'target_network': self._target_network,
            'optimizer': self._optimizer}

  def reset(self, env_ids: np.ndarray):
    training = env_ids[env_ids < self._num_training_envs]
    if training.size:
      self._sequence_writer.reset(training)

  def policy_inputs(self, step, new_run):
    stacked = self._stacker(step.env_ids, step.observations, step.dones | new_run)
    return stacked, self._epsilons[step.env_ids]

  def record(self, step: base.InferenceStep, training: np.ndarray, prev_actions: np.ndarray,
             actions: np.ndarray, q_values: np.ndarray,
             states_before: Sequence[np.ndarray]):
    self._sequence_writer.append(
        step.env_ids[training], {
            'observation': step.observations[training],
            'prev_action': prev_actions[training], 'reward': step.rewards[training],
            'done': step.dones[training], 'truncation': step.truncations[training],
            'action': actions[training],
        }, q_values[training],
        np.concatenate([s[training] for s in states_before], axis=-1))

  # ---- Training -------------------------------------------------------------------

  def prepare(self, stopping):
    """Nodes start together under local_mp: waits for the replay server to answer.
    Only this node inserts, so the table then holds exactly what its checkpoint had."""
    while not stopping():
      size = self._replay_size()
      if size is not None:
        self._replay_size_at_start = size
        print(f'[learner] replay holds {size} sequences at start', flush=True)
        return True
      time.sleep(0.5)
    return False

  def _dataset(self):
    # Unbatched, and batches are assembled here: when the rate limiter makes the dataset
    # time out, only the iterator is replaced and the samples already taken are kept.
    # (A batching dataset would drop its partial batch on every timeout, and so eat the
    # rate limiter's sample budget without ever completing a batch.)
    return iter(reverb.TrajectoryDataset.from_table_signature(
        self._replay.server_address, replay_lib.TABLE,
        max_in_flight_samples_per_worker=self._config.learner.batch_size,
        rate_limiter_timeout_ms=2000))

  def next_batch(self):
    batch_size = self._config.learner.batch_size
    while len(self._pending_samples) < batch_size:
      if self._iterator is None:
        self._iterator = self._dataset()
      try:
        sample = next(self._iterator)
      except (StopIteration, tf.errors.OutOfRangeError, tf.errors.DeadlineExceededError):
        self._iterator = None  # The rate limiter timed out: not enough inserts yet.
        return None
      self._pending_samples.append(tf.nest.map_structure(lambda t: t.numpy(), sample))
    batch = self._pending_samples[:batch_size]
    self._pending_samples = self._pending_samples[batch_size:]
    return tf.nest.map_structure(lambda *xs: np.stack(xs), *batch)

  def train(self, sample):
    weights = loss.importance_weights(sample.info.probability, sample.info.table_size,
                                      self._config.learner.importance_sampling_exponent)
    # Reverb's samples are batch-major: every field splits along axis 0.
    outputs = self._train_fn(self._devices.distribute((sample.data, weights), (0, 0)))
    if not outputs['update_applied']:
      return {'update_applied': False}  # Non-finite: the old priorities stay.
    priorities = np.maximum(outputs.pop('priorities').numpy(), 1e-6)
    keys = sample.info.key
    self._replay.mutate_priorities(replay_lib.TABLE,
                                   updates=dict(zip(keys.tolist(), priorities.tolist())))
    self.priority_updates += len(keys)
    outputs = {k: float(v) for k, v in outputs.items()}
    outputs['update_applied'] = True
    outputs['mean_priority'] = float(priorities.mean())
    # Priorities the sampled sequences had (initial ones, or those of an earlier update).
    previous = sample.info.priority
    outputs['mean_sampled_priority'] = float(previous.mean())
    outputs['priorities_changed_fraction'] = float(
        np.mean(np.abs(priorities - previous) > 1e-6 * np.maximum(previous, 1e-6)))
    outputs['mean_times_sampled'] = float(sample.info.times_sampled.mean())
    outputs['mean_importance_weight'] = float(np.mean(weights))
    return outputs

  def _loss(self, data, weights):
    learner = self._config.learner
    time_major = lambda x: tf.transpose(x, tf.concat([[1, 0], tf.range(2, tf.rank(x))], 0))
    observations = frame_stack.stack_frames(time_major(data['observation']),
                                     time_major(data['done']), self._layout.stack)
    lead = self._layout.leading
    steps = {k: time_major(data[k])[lead:]
             for k in ('prev_action', 'reward', 'done', 'truncation', 'action')}
    steps['observation'] = observations
    burn_in = learner.burn_in
    head = {k: v[:burn_in] for k, v in steps.items()}
    tail = {k: v[burn_in:] for k, v in steps.items()}
    unroll = lambda network, s, state: network.unroll(
        s['prev_action'], s['reward'], s['done'], s['observation'], state)

    online_state = target_state = self._split_state(data['core_state'])
    if burn_in:
      _, online_state = unroll(self.network, head, online_state)
      _, target_state = unroll(self._target_network, head, target_state)
      online_state = tf.nest.map_structure(tf.stop_gradient, online_state)
    target_q, _ = unroll(self._target_network, tail, target_state)
    online_q, _ = unroll(self.network, tail, online_state)
    terms = loss.r2d2_loss(
        online_q, target_q, tail['action'], tail['reward'], tail['done'],
        tail['truncation'], weights, discount=learner.discount, n_step=learner.n_step,
        eta=learner.priority_eta, rescale_eps=learner.value_rescale_eps,
        over_steps=learner.loss_over_steps)
    means = {'loss': terms.loss, 'mean_q': terms.mean_q, 'target_mean': terms.target_mean,
             'mean_abs_td': tf.reduce_mean(terms.abs_td_errors)}
    return terms.loss, means, {'priorities': terms.priorities}

  def _train_step(self, shards):
    learner = self._config.learner
    means, rows, gradient_norm, applied = self._devices.gradient_step(
        self._loss, self.network.trainable_variables, self._optimizer,
        learner.gradient_clip_norm, shards)
    # The optimizer's step counter is the learner step count (one update per step).
    if tf.logical_and(applied,
                      self._optimizer.iterations % learner.target_update_period == 0):
      with self._devices.variable_scope():  # Every device's copy of the target.
        self._update_target()
    return dict(means, priorities=rows['priorities'], gradient_norm=gradient_norm,
                update_applied=applied)

  # ---- Replay state ---------------------------------------------------------------

  def _replay_size(self):
    try:
      return int(self._replay.server_info(timeout=5)[replay_lib.TABLE].current_size)
    except Exception:  # pylint: disable=broad-except
      return None

  def stats(self):
    return {'sequences_written': self._sequence_writer.items_created,
            'priority_updates': self.priority_updates,
            'replay_size': self._replay_size(),
            'replay_size_at_start': self._replay_size_at_start,
            'replay_size_at_checkpoint': self._replay_size_at_checkpoint}

  def before_checkpoint(self):
    if self._replay_size() is None:
      # The whole program is stopping and the replay node is gone already: keep the
      # replay's previous checkpoint (the model is saved all the same).
      logging.warning('replay unreachable; saving the model only')
      return
    self._replay.checkpoint()
    self._replay_size_at_checkpoint = self._replay_size()

  def close(self):
    # Close the sampling dataset while the replay server is still up: an iterator whose
    # server is gone can hang the process at exit.
    self._iterator = None
    gc.collect()
    self._sequence_writer.flush_all()
    self._sequence_writer.close()
