"""The R2D2 learner-inference node: central inference with per-environment epsilon-greedy,
sequence writing into the Reverb replay node, and training on prioritized samples.

Edges:
  * courier control edge: `get_stats`, `save`, `stop` (as the V-trace learner).
  * central inference edge: the same gRPC stream and wire messages as V-trace
    (`seed_graph.nodes.learner.RequestParser`), so actors and evaluators are unchanged.
  * replay edge: a `reverb.Client` (Launchpad dereferences the `ReverbNode` handle into
    one). Training environments' steps go into it as overlapping sequences through one
    `TrajectoryWriter` each (`seed_graph.sequences`); training samples batches through
    Reverb's TensorFlow dataset and sends new priorities back after every step.

Exploration: training environment i of N acts epsilon-greedily with
0.4 ** (1 + 7 i / (N - 1)) (Ape-X); evaluation environments with `evaluators.epsilon`
and are never written to replay.

Checkpoints: `save()` checkpoints the replay (Reverb's checkpointer, into
`<logdir>/replay`) and then the model (`<logdir>/checkpoints`); a restart with the same
logdir restores both.
"""

import collections
import gc
import os
import threading
import time
from typing import List, Optional

from absl import logging
import numpy as np
import reverb
import tensorflow as tf

from seed_graph import env_states as env_states_lib
from seed_graph import envs
from seed_graph import launcher_watch
from seed_graph import layout
from seed_graph import metrics as metrics_lib
from seed_graph import sequences as sequences_lib
from seed_graph.algos import q_networks
from seed_graph.algos import r2d2
from seed_graph.nodes import learner as learner_lib

TABLE = 'replay'


def sequence_layout(config) -> sequences_lib.SequenceLayout:
  return sequences_lib.SequenceLayout(config.learner.burn_in, config.learner.unroll_length,
                                      config.network.frame_stack)


def replay_signature(config):
  """The replay table's signature (builds the environment and network once)."""
  info = envs.EnvironmentInfo(config.env)
  network = q_networks.make_q_network(config.network, info.num_actions)
  state_size = sum(q_networks.state_sizes(network))
  return sequences_lib.table_signature(sequence_layout(config), info.observation_shape,
                                       info.observation_dtype, state_size)


def make_replay_tables(config) -> List[reverb.Table]:
  """The replay node's tables, from `config.replay` (runs in the replay process)."""
  launcher_watch.watch()
  replay = config.replay
  return [reverb.Table(
      name=TABLE,
      sampler=reverb.selectors.Prioritized(replay.priority_exponent),
      remover=reverb.selectors.Fifo(),
      max_size=replay.capacity,
      rate_limiter=reverb.rate_limiters.SampleToInsertRatio(
          samples_per_insert=replay.samples_per_insert,
          min_size_to_sample=replay.min_size_to_sample,
          error_buffer=float(replay.error_buffer)),
      signature=replay_signature(config))]


def replay_checkpoint_dir(logdir: str) -> str:
  return os.path.join(logdir, 'replay')


def make_replay_checkpointer(logdir: str) -> reverb.checkpointers.DefaultCheckpointer:
  return reverb.checkpointers.DefaultCheckpointer(replay_checkpoint_dir(logdir))


class R2D2LearnerInference:
  """What runs in the learner-inference process. See the module docstring."""

  def __init__(self, config, replay, inference_port: Optional[int] = None):
    self._config = config
    self._logdir = config.logdir
    self._replay = replay if isinstance(replay, reverb.Client) else reverb.Client(replay)
    self._inference_port = inference_port
    self._stop = threading.Event()
    self._train_lock = threading.Lock()
    learner = config.learner

    info = envs.EnvironmentInfo(config.env)
    self._info = info
    self._frames_per_step = info.frames_per_step
    self._num_actions = info.num_actions
    self._layout = sequence_layout(config)
    self._network = q_networks.make_q_network(config.network, info.num_actions)
    self._target_network = q_networks.make_q_network(config.network, info.num_actions)
    stack = config.network.frame_stack
    network_shape = info.observation_shape + ((stack,) if stack > 1 else ())
    zeros = lambda shape, dtype: tf.zeros((1,) + tuple(shape), dtype)
    self._state_template = self._network.initial_state(1)
    example_inputs = (zeros((), tf.int32), zeros((), tf.float32), zeros((), tf.bool),
                      zeros(network_shape, info.observation_dtype), self._state_template)
    for network in (self._network, self._target_network):
      network.step(*example_inputs)
    self._update_target()
    self._state_sizes = q_networks.state_sizes(self._network)
    self._optimizer = tf.keras.optimizers.Adam(learner.learning_rate,
                                               epsilon=learner.adam_epsilon)
    self._learner_steps = tf.Variable(0, dtype=tf.int64, trainable=False)
    self._frames_variable = tf.Variable(0, dtype=tf.int64, trainable=False)
    self._checkpoint = tf.train.Checkpoint(
        network=self._network, target_network=self._target_network,
        optimizer=self._optimizer, learner_steps=self._learner_steps,
        frames=self._frames_variable)
    self._checkpoints = tf.train.CheckpointManager(
        self._checkpoint, os.path.join(self._logdir, 'checkpoints'), max_to_keep=3)
    if self._checkpoints.latest_checkpoint:
      self._checkpoint.restore(self._checkpoints.latest_checkpoint)
      logging.info('Resumed from %s', self._checkpoints.latest_checkpoint)
    self._frames = int(self._frames_variable.numpy())

    num_training_envs = layout.num_training_envs(config)
    num_envs = layout.num_envs(config)
    self._num_training_envs = num_training_envs
    # Per-env run ids, previous actions, recurrent states and episode statistics; its
    # unroll buffers are not used here (sequences go to Reverb), so they are one step.
    self._env_states = env_states_lib.EnvironmentStates(
        num_envs, 0, info.observation_shape, info.observation_dtype, info.num_actions,
        [(size,) for size in self._state_sizes])
    self._epsilons = np.concatenate([
        sequences_lib.training_epsilons(num_training_envs, config.exploration.base,
                                        config.exploration.alpha),
        np.full(num_envs - num_training_envs, config.evaluators.epsilon, np.float32)])
    self._stacker = sequences_lib.FrameStacker(num_envs, info.observation_shape,
                                               info.observation_dtype, stack)
    self._buckets = learner_lib.bucket_sizes(config.inference.batch_size)
    self._sequence_writer = sequences_lib.SequenceWriter(
        self._replay, TABLE, num_training_envs, self._layout, info.num_actions,
        config.replay.chunk_length, self._initial_priorities, stop_event=self._stop)
    self._inference_server = learner_lib.InferenceServer(
        config,
        learner_lib.RequestParser(info.observation_shape, info.observation_dtype,
                                  num_training_envs, num_envs, config.inference.batch_size),
        self._infer_batch)
    self._batcher = self._inference_server.batcher
    self.inference_traces = 0
    self._inference_fn = learner_lib.trace_for_any_batch(
        self._inference, *example_inputs, zeros((), tf.float32),
        jit_compile=config.inference.jit_compile, batch_sizes=self._buckets)
    self._train_fn = tf.function(self._train_step)

    self._stats_lock = threading.Lock()
    self._train_returns = collections.deque(maxlen=100)
    self._eval_returns = collections.deque(maxlen=100)
    self._train_episodes = 0
    self._eval_episodes = 0
    self._last_losses = {}
    self._replay_size_at_start = None
    self._replay_size_at_checkpoint = None
    self.priority_updates = 0

  # ---- Networks --------------------------------------------------------------------

  def _update_target(self):
    for target, online in zip(self._target_network.variables, self._network.variables):
      target.assign(online)

  def _split_state(self, flat_state):
    parts = tf.split(flat_state, self._state_sizes, axis=-1)
    return tf.nest.pack_sequence_as(self._state_template, parts)

  # ---- Inference (the batcher's thread) ------------------------------------------

  def _inference(self, prev_actions, rewards, dones, observations, core_state, epsilons):
    self.inference_traces += 1  # Runs at trace time only.
    q_values, new_state = self._network.step(prev_actions, rewards, dones, observations,
                                             core_state)
    batch = tf.shape(q_values)[0]
    greedy = tf.argmax(q_values, axis=-1, output_type=tf.int32)
    explore = tf.random.uniform([batch]) < epsilons
    random_actions = tf.random.uniform([batch], 0, self._num_actions, dtype=tf.int32)
    return tf.where(explore, random_actions, greedy), q_values, new_state

  def _initial_priorities(self, sequences):
    """Priorities of new sequences from the Q values seen at inference time: the same
    n-step TD errors as training, with the online values as their own target."""
    learner = self._config.learner
    part = {k: v[learner.burn_in:] for k, v in sequences.items()}
    q_values = tf.constant(part['q_values'])
    eps = learner.value_rescale_eps
    values = r2d2.inverse_value_rescale(tf.reduce_max(q_values, axis=-1), eps)
    targets, mask = r2d2.n_step_targets(part['reward'], part['done'], part['truncation'],
                                        values, learner.discount, learner.n_step)
    taken = tf.reduce_sum(
        q_values[:-1] * tf.one_hot(part['action'][:-1], self._num_actions), axis=-1)
    td = tf.abs(r2d2.value_rescale(targets, eps) - taken) * mask
    return np.maximum(r2d2.compute_priorities(td, learner.priority_eta).numpy(), 1e-6)

  def _infer_batch(self, requests: List[learner_lib.InferenceRequest]):
    env_ids = np.concatenate([r.env_ids for r in requests])
    run_ids = np.concatenate([r.run_ids for r in requests])
    rewards = np.concatenate([r.rewards for r in requests])
    dones = np.concatenate([r.dones for r in requests])
    truncations = np.concatenate([r.truncations for r in requests])
    observations = np.concatenate([r.observations for r in requests])
    rows = len(env_ids)

    states = self._env_states
    reset_ids, finished_ids, finished_returns, _ = states.begin_step(
        env_ids, run_ids, rewards, dones)
    training_resets = reset_ids[reset_ids < self._num_training_envs]
    if training_resets.size:
      self._sequence_writer.reset(training_resets)
    starts = dones | np.isin(env_ids, reset_ids)
    stacked = self._stacker(env_ids, observations, starts)
    prev_actions = states.prev_actions[env_ids]
    states_before = states.gather_core_states(env_ids)

    padded = next(size for size in self._buckets if size >= rows)
    pad = lambda x: learner_lib.pad_rows(x, padded)
    core_state = tf.nest.pack_sequence_as(self._state_template,
                                          [pad(s) for s in states_before])
    actions, q_values, new_state = self._inference_fn(
        pad(prev_actions), pad(rewards), pad(dones), pad(stacked), core_state,
        pad(self._epsilons[env_ids]))
    actions = np.asarray(actions)[:rows]
    q_values = np.asarray(q_values)[:rows]
    new_state = [np.asarray(s)[:rows] for s in tf.nest.flatten(new_state)]

    training = env_ids < self._num_training_envs
    if training.any():
      self._sequence_writer.append(
          env_ids[training], {
              'observation': observations[training],
              'prev_action': prev_actions[training], 'reward': rewards[training],
              'done': dones[training], 'truncation': truncations[training],
              'action': actions[training],
          }, q_values[training],
          np.concatenate([s[training] for s in states_before], axis=-1))
    states.end_step(env_ids, actions, new_state)

    with self._stats_lock:
      self._frames += int(training.sum()) * self._frames_per_step
      for value, env_id in zip(finished_returns.tolist(), finished_ids.tolist()):
        if env_id >= self._num_training_envs:
          self._eval_returns.append(value)
          self._eval_episodes += 1
        else:
          self._train_returns.append(value)
          self._train_episodes += 1

    results, start = [], 0
    for request in requests:
      end = start + len(request.env_ids)
      results.append(actions[start:end])
      start = end
    return results

  # ---- Training (the node's main thread) ------------------------------------------

  def _train_step(self, data, weights):
    learner = self._config.learner
    layout_ = self._layout
    time_major = lambda x: tf.transpose(x, tf.concat([[1, 0], tf.range(2, tf.rank(x))], 0))
    observations = r2d2.stack_frames(time_major(data['observation']),
                                     time_major(data['done']), layout_.stack)
    lead = layout_.leading
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
      _, online_state = unroll(self._network, head, online_state)
      _, target_state = unroll(self._target_network, head, target_state)
      online_state = tf.nest.map_structure(tf.stop_gradient, online_state)
    target_q, _ = unroll(self._target_network, tail, target_state)
    with tf.GradientTape() as tape:
      online_q, _ = unroll(self._network, tail, online_state)
      terms = r2d2.r2d2_loss(
          online_q, target_q, tail['action'], tail['reward'], tail['done'],
          tail['truncation'], weights, discount=learner.discount, n_step=learner.n_step,
          eta=learner.priority_eta, rescale_eps=learner.value_rescale_eps)
    variables = self._network.trainable_variables
    gradients = tape.gradient(terms.loss, variables)
    gradient_norm = tf.linalg.global_norm(gradients)
    if learner.gradient_clip_norm > 0:
      gradients, _ = tf.clip_by_global_norm(gradients, learner.gradient_clip_norm,
                                            use_norm=gradient_norm)
    self._optimizer.apply_gradients(zip(gradients, variables))
    self._learner_steps.assign_add(1)
    if self._learner_steps % learner.target_update_period == 0:
      self._update_target()
    return {'priorities': terms.priorities, 'loss': terms.loss, 'mean_q': terms.mean_q,
            'target_mean': terms.target_mean, 'gradient_norm': gradient_norm,
            'mean_abs_td': tf.reduce_mean(terms.abs_td_errors)}

  def _dataset(self):
    # Unbatched, and batches are assembled here: when the rate limiter makes the dataset
    # time out, only the iterator is replaced and the samples already taken are kept.
    # (A batching dataset would drop its partial batch on every timeout, and so eat the
    # rate limiter's sample budget without ever completing a batch.)
    return iter(reverb.TrajectoryDataset.from_table_signature(
        self._replay.server_address, TABLE,
        max_in_flight_samples_per_worker=self._config.learner.batch_size,
        rate_limiter_timeout_ms=2000))

  def _next_batch(self):
    """Blocks for `batch_size` samples (a stacked ReplaySample); None when stopping."""
    batch_size = self._config.learner.batch_size
    while len(self._pending_samples) < batch_size:
      if self._stopping():
        return None
      if self._iterator is None:
        self._iterator = self._dataset()
      try:
        sample = next(self._iterator)
      except (StopIteration, tf.errors.OutOfRangeError, tf.errors.DeadlineExceededError):
        self._iterator = None  # The rate limiter timed out: not enough inserts yet.
        self._maybe_log()
        continue
      self._pending_samples.append(tf.nest.map_structure(lambda t: t.numpy(), sample))
    batch = self._pending_samples[:batch_size]
    self._pending_samples = self._pending_samples[batch_size:]
    return tf.nest.map_structure(lambda *xs: np.stack(xs), *batch)

  def _train_on(self, sample):
    weights = r2d2.importance_weights(sample.info.probability, sample.info.table_size,
                                      self._config.learner.importance_sampling_exponent)
    with self._train_lock:
      outputs = self._train_fn(sample.data, weights)
    priorities = np.maximum(outputs.pop('priorities').numpy(), 1e-6)
    keys = sample.info.key
    self._replay.mutate_priorities(TABLE, updates=dict(zip(keys.tolist(),
                                                           priorities.tolist())))
    self.priority_updates += len(keys)
    outputs = {k: float(v) for k, v in outputs.items()}
    outputs['mean_priority'] = float(priorities.mean())
    # Priorities the sampled sequences had (initial ones, or those of an earlier update).
    previous = sample.info.priority
    outputs['mean_sampled_priority'] = float(previous.mean())
    outputs['priorities_changed_fraction'] = float(
        np.mean(np.abs(priorities - previous) > 1e-6 * np.maximum(previous, 1e-6)))
    outputs['mean_times_sampled'] = float(sample.info.times_sampled.mean())
    outputs['mean_importance_weight'] = float(np.mean(weights))
    self._last_losses = outputs

  def _replay_size(self) -> Optional[int]:
    try:
      return int(self._replay.server_info(timeout=5)[TABLE].current_size)
    except Exception:  # pylint: disable=broad-except
      return None

  def _wait_for_replay(self):
    """Nodes start together under local_mp: wait for the replay server to answer."""
    while not self._stopping():
      size = self._replay_size()
      if size is not None:
        return size
      time.sleep(0.5)
    return None

  def _snapshot(self):
    with self._stats_lock:
      mean = lambda values: float(np.mean(values)) if values else None
      return {
          'frames': self._frames,
          'learner_steps': int(self._learner_steps.numpy()),
          'episode_return': mean(self._train_returns),
          'eval_episode_return': mean(self._eval_returns),
          'train_episodes': self._train_episodes,
          'eval_episodes': self._eval_episodes,
          'inference_batches': self._batcher.batches_processed,
          'inference_rows': self._batcher.rows_processed,
          'sequences_written': self._sequence_writer.items_created,
          'priority_updates': self.priority_updates,
          'replay_size_at_start': self._replay_size_at_start,
          'replay_size_at_checkpoint': self._replay_size_at_checkpoint,
      }

  def _maybe_log(self, force=False):
    if not force and not self._progress.due():
      return
    record = self._snapshot()
    record['replay_size'] = self._replay_size()
    record.update(self._last_losses)
    self._progress.write(record)

  # ---- Courier control edge -------------------------------------------------------

  def get_stats(self) -> dict:
    """Counters, recent returns and the replay size (JSON-able)."""
    stats = self._snapshot()
    stats['replay_size'] = self._replay_size()
    return stats

  def save(self) -> str:
    """Checkpoints the replay (Reverb) and then the model; returns the model's path."""
    with self._train_lock:
      if self._replay_size() is None:
        # The whole program is stopping and the replay node is gone already: keep the
        # replay's previous checkpoint, save the model.
        logging.warning('replay unreachable; saving the model only')
      else:
        self._replay.checkpoint()
        self._replay_size_at_checkpoint = self._replay_size()
      with self._stats_lock:
        self._frames_variable.assign(self._frames)
      return self._checkpoints.save()

  def stop(self) -> None:
    """Stops this node (training and inference); the node then stops the program."""
    self._stop.set()

  # ---- Lifecycle ------------------------------------------------------------------

  def _start_inference(self, port: int):
    self._inference_server.start(port)

  def _shutdown_inference(self):
    self._stop.set()
    self._inference_server.shutdown()

  def _stopping(self) -> bool:
    return self._stop.is_set() or learner_lib.program_stopping()

  def run(self):
    self._metrics = metrics_lib.MetricsWriter(self._logdir)
    self._progress = metrics_lib.ProgressLog(
        self._metrics, self._config.logging.interval_seconds, self._frames)
    # Only this node inserts into replay, so before inference starts the table holds
    # exactly what was restored from the replay checkpoint.
    self._replay_size_at_start = self._wait_for_replay()
    if self._replay_size_at_start is None:
      return
    print(f'[learner] replay holds {self._replay_size_at_start} sequences at start',
          flush=True)
    self._start_inference(self._inference_port)
    last_checkpoint = time.time()
    total = self._config.total_environment_frames
    finished = False
    self._iterator = None
    self._pending_samples = []
    try:
      while not self._stopping():
        if self._frames >= total:
          finished = True
          break
        sample = self._next_batch()
        if sample is None:
          break
        self._train_on(sample)
        self._maybe_log()
        if time.time() - last_checkpoint > self._config.logging.checkpoint_interval_seconds:
          self.save()
          last_checkpoint = time.time()
    finally:
      # Close the sampling dataset while the replay server is still up: an iterator whose
      # server is gone can hang the process at exit.
      self._iterator = None
      gc.collect()
      # Inference stops first (so nothing more goes into replay), but its server stays up
      # until the program is told to stop: actors then get UNAVAILABLE at once and notice
      # the stop while backing off, instead of waiting for a server that is gone.
      self._stop.set()
      self._inference_server.stop_batching()
      self._sequence_writer.flush_all()
      self._sequence_writer.close()
      path = self.save()
      self._maybe_log(force=True)
      self._metrics.close()
      print(f'[learner] checkpoint {path}; frames={self._frames}; replay size '
            f'{self._replay_size_at_checkpoint}', flush=True)
      if finished:
        print(f'[learner] reached total_environment_frames={total}; stopping the program',
              flush=True)
        learner_lib.stop_program()
        time.sleep(2.0)
      self._shutdown_inference()


class R2D2LearnerInferenceNode(learner_lib.CentralInferenceNode):
  """The R2D2 learner-inference node: `R2D2LearnerInferenceNode(config, replay)`; its
  handle dereferences to a `LearnerClient`, exactly like the V-trace learner's."""

  def __init__(self, config, replay):
    super().__init__(R2D2LearnerInference, config, replay)
