"""The learner-inference node: owns the model, serves batched inference to every actor
and evaluator over a gRPC stream, assembles unrolls and trains on them with V-trace.

Edges:
  * courier control edge (the node's courier server): `get_stats`, `save`, `stop`.
  * central inference edge (its own grpcio server): a bidirectional stream per caller
    carrying `seed_graph.wire` messages (see `parse_request` for the fields).

Dereferencing the node's handle in another node gives a `LearnerClient` with both.
"""

import collections
import os
import queue
import threading
import time
from typing import List, Optional

from absl import logging
import courier
import grpc
import launchpad as lp
from launchpad import address as lp_address
from launchpad.nodes import base
from launchpad.nodes.courier import node as courier_node
import numpy as np
import tensorflow as tf

from seed_graph import batching
from seed_graph import env_states as env_states_lib
from seed_graph import envs
from seed_graph import inference_edge
from seed_graph import launcher_watch
from seed_graph import layout
from seed_graph import metrics as metrics_lib
from seed_graph import wire
from seed_graph.algos import impala
from seed_graph.algos import networks

INFERENCE_PORT_NAME = 'inference'

InferenceRequest = collections.namedtuple(
    'InferenceRequest',
    ['env_ids', 'run_ids', 'rewards', 'dones', 'truncations', 'observations', 'is_eval'])


def pad_rows(array: np.ndarray, rows: int) -> np.ndarray:
  """Zero rows appended up to `rows`; the array itself (no copy) if it has that many."""
  missing = rows - len(array)
  if not missing:
    return array
  return np.concatenate([array, np.zeros((missing,) + array.shape[1:], array.dtype)])


def trace_for_any_batch(fn, *example_inputs, jit_compile=False, batch_sizes=()):
  """`fn` traced once as a TF graph for inputs shaped like `example_inputs` (nests of
  tensors with a leading batch dimension) but with any number of rows.

  Returns a callable taking the same (NumPy or tensor) inputs. It runs the one concrete
  function, which skips the argument matching a `tf.function` does on every call (about
  0.5 ms per inference batch on a CPU), and no batch size, padded or not, can trigger a
  retrace in the middle of a run.

  With `jit_compile` the graph runs as one XLA program. XLA compiles once per input
  shape, so each of `batch_sizes` (the padded sizes the caller will use) is compiled
  here, on zeros, rather than by the first request of that size.
  """
  signature = tf.nest.map_structure(
      lambda x: tf.TensorSpec((None,) + tuple(x.shape[1:]), x.dtype), example_inputs)
  concrete = tf.function(fn, input_signature=signature,
                         jit_compile=jit_compile).get_concrete_function()
  call = lambda *inputs: concrete(*tf.nest.map_structure(tf.convert_to_tensor, inputs))
  if jit_compile:
    for rows in batch_sizes:
      call(*tf.nest.map_structure(
          lambda x, rows=rows: tf.zeros((rows,) + tuple(x.shape[1:]), x.dtype),
          example_inputs))
  return call


def bucket_sizes(max_rows: int) -> List[int]:
  """Padded batch sizes for inference: powers of two below max_rows, then max_rows.

  The inference graph is traced once for any batch size (`trace_for_any_batch`); the
  padding keeps the shapes it runs on to at most six, which is what a compiler that
  specializes on shapes (XLA, TPUs) needs.
  """
  sizes = [max_rows]
  while len(sizes) < 6 and sizes[-1] > 1:
    sizes.append(sizes[-1] // 2)
  return sorted(set(sizes))


class RequestParser:
  """Validates an actor's message against the environment spec; errors name the field."""

  def __init__(self, observation_shape, observation_dtype, num_training_envs, num_envs,
               max_rows):
    self._observation_shape = tuple(observation_shape)
    self._observation_dtype = np.dtype(observation_dtype)
    self._num_training_envs = num_training_envs
    self._num_envs = num_envs
    self._max_rows = max_rows

  def __call__(self, message: bytes) -> InferenceRequest:
    arrays, meta = wire.decode(message)
    expected = {'env_ids': np.int32, 'run_ids': np.int64, 'rewards': np.float32,
                'dones': np.bool_, 'truncations': np.bool_,
                'observations': self._observation_dtype}
    for name, dtype in expected.items():
      if name not in arrays:
        raise wire.WireFormatError(f'missing array {name!r}')
      if arrays[name].dtype != dtype:
        raise wire.WireFormatError(
            f'{name}: dtype {arrays[name].dtype}, expected {np.dtype(dtype)}')
    rows = arrays['env_ids'].shape
    if len(rows) != 1 or not 0 < rows[0] <= self._max_rows:
      raise wire.WireFormatError(
          f'env_ids: shape {rows}, expected [B] with 0 < B <= {self._max_rows}')
    for name in ('run_ids', 'rewards', 'dones', 'truncations'):
      if arrays[name].shape != rows:
        raise wire.WireFormatError(f'{name}: shape {arrays[name].shape}, expected {rows}')
    if arrays['observations'].shape != rows + self._observation_shape:
      raise wire.WireFormatError(f'observations: shape {arrays["observations"].shape}, '
                                 f'expected {rows + self._observation_shape}')
    is_eval = meta.get('eval', False)
    if not isinstance(is_eval, bool):
      raise wire.WireFormatError(f'meta.eval: expected a bool, got {is_eval!r}')
    env_ids = arrays['env_ids']
    low, high = ((self._num_training_envs, self._num_envs) if is_eval
                 else (0, self._num_training_envs))
    if env_ids.min() < low or env_ids.max() >= high:
      raise wire.WireFormatError(
          f'env_ids: {"evaluation" if is_eval else "training"} ids must be in '
          f'[{low}, {high}), got {env_ids.min()}..{env_ids.max()}')
    if np.unique(env_ids).size != env_ids.size:
      raise wire.WireFormatError('env_ids: duplicate ids in one request')
    if (arrays['run_ids'] == 0).any():
      raise wire.WireFormatError('run_ids: must be non-zero')
    return InferenceRequest(env_ids, arrays['run_ids'], arrays['rewards'], arrays['dones'],
                            arrays['truncations'], arrays['observations'], is_eval)


class InferenceServer:
  """The learner's side of the inference edge, shared by every learner kind.

  Each stream's messages are parsed (a bad one fails that caller only, with
  INVALID_ARGUMENT), batched across callers by a `DynamicBatcher` around
  `infer_batch(requests) -> actions per request`, and answered in order.
  """

  def __init__(self, config, parse_request, infer_batch):
    self._parse_request = parse_request
    self._max_streams = layout.num_envs(config) + 16  # Room for reconnects.
    self.batcher = batching.DynamicBatcher(
        infer_batch, config.inference.batch_size, config.inference.timeout_us,
        request_keys=lambda request: request.env_ids)
    self._server = None

  def start(self, port: int):
    self.batcher.start()
    self._server = inference_edge.serve(port, self._serve_stream, self._max_streams)

  def stop_batching(self):
    """Fails waiting and new requests (UNAVAILABLE); the server stays up."""
    self.batcher.stop()

  def shutdown(self):
    self.batcher.stop()
    if self._server is not None:
      self._server.stop(grace=1).wait()

  def _serve_stream(self, request_iterator, context):
    for message in request_iterator:
      try:
        request = self._parse_request(message)
      except wire.WireFormatError as e:
        context.abort(grpc.StatusCode.INVALID_ARGUMENT, f'bad inference request: {e}')
      try:
        actions = self.batcher.submit(request).result()
      except batching.BatcherStopped as e:
        context.abort(grpc.StatusCode.UNAVAILABLE, str(e))
      except Exception as e:  # pylint: disable=broad-except
        logging.exception('inference failed')
        context.abort(grpc.StatusCode.INTERNAL, f'inference failed: {e}')
      yield wire.encode({'actions': actions})


class LearnerInference:
  """What runs in the learner-inference process. See the module docstring."""

  def __init__(self, config, inference_port: Optional[int] = None):
    self._config = config
    self._logdir = config.logdir
    self._inference_port = inference_port
    self._stop = threading.Event()
    self._train_lock = threading.Lock()
    learner_config = config.learner

    info = envs.EnvironmentInfo(config.env)
    self._frames_per_step = info.frames_per_step
    self._num_actions = info.num_actions
    self._agent = networks.make_agent(config.network, info.observation_shape,
                                      info.num_actions)
    frames_per_learner_step = (learner_config.batch_size * learner_config.unroll_length *
                               info.frames_per_step)
    final_step = max(1, config.total_environment_frames // frames_per_learner_step)
    learning_rate = learner_config.learning_rate
    if learner_config.learning_rate_decay:
      learning_rate = tf.keras.optimizers.schedules.PolynomialDecay(
          learner_config.learning_rate, final_step, end_learning_rate=0.0)
    self._optimizer = tf.keras.optimizers.Adam(
        learning_rate, beta_1=learner_config.adam_beta1, beta_2=learner_config.adam_beta2,
        epsilon=learner_config.adam_epsilon)

    # Build the variables before restoring, so the restore is checked at once.
    zeros = lambda shape, dtype: tf.zeros((1,) + tuple(shape), dtype)
    self._state_template = self._agent.initial_state(1)
    example_inputs = (zeros((), tf.int32), zeros((), tf.float32), zeros((), tf.bool),
                      zeros(info.observation_shape, info.observation_dtype),
                      self._state_template)
    self._agent.step(*example_inputs)
    self._learner_steps = tf.Variable(0, dtype=tf.int64, trainable=False)
    self._frames_variable = tf.Variable(0, dtype=tf.int64, trainable=False)
    self._checkpoint = tf.train.Checkpoint(
        agent=self._agent, optimizer=self._optimizer, learner_steps=self._learner_steps,
        frames=self._frames_variable)
    self._checkpoints = tf.train.CheckpointManager(
        self._checkpoint, os.path.join(self._logdir, 'checkpoints'), max_to_keep=3)
    if self._checkpoints.latest_checkpoint:
      self._checkpoint.restore(self._checkpoints.latest_checkpoint)
      logging.info('Resumed from %s', self._checkpoints.latest_checkpoint)
    self._frames = int(self._frames_variable.numpy())

    num_training_envs = layout.num_training_envs(config)
    self._num_training_envs = num_training_envs
    state_shapes = [tuple(s.shape[1:]) for s in tf.nest.flatten(self._state_template)]
    self._env_states = env_states_lib.EnvironmentStates(
        layout.num_envs(config), learner_config.unroll_length, info.observation_shape,
        info.observation_dtype, info.num_actions, state_shapes)
    self._inference_server = InferenceServer(
        config,
        RequestParser(info.observation_shape, info.observation_dtype, num_training_envs,
                      layout.num_envs(config), config.inference.batch_size),
        self._infer_batch)
    self._batcher = self._inference_server.batcher
    self._buckets = bucket_sizes(config.inference.batch_size)
    self._unrolls = queue.Queue(maxsize=learner_config.queue_capacity)
    self.inference_traces = 0
    self._inference_fn = trace_for_any_batch(
        self._inference, *example_inputs, zeros((), tf.bool),
        jit_compile=config.inference.jit_compile, batch_sizes=self._buckets)
    self._train_fn = tf.function(self._train_step)

    self._stats_lock = threading.Lock()
    self._train_returns = collections.deque(maxlen=100)
    # Evaluators finish few episodes, so their mean covers only the most recent ones.
    self._eval_returns = collections.deque(maxlen=10)
    self._eval_episodes = 0
    self._train_episodes = 0
    self._last_losses = {}

  # ---- Inference (the batcher's thread) ------------------------------------------

  def _inference(self, prev_actions, rewards, dones, observations, core_state, is_eval):
    self.inference_traces += 1  # Runs at trace time only.
    outputs, new_state = self._agent.step(prev_actions, rewards, dones, observations,
                                          core_state)
    logits = outputs.policy_logits
    batch = tf.shape(logits)[0]
    sampled = tf.random.categorical(logits, 1, dtype=tf.int32)[:, 0]
    greedy = tf.argmax(logits, axis=-1, output_type=tf.int32)
    explore = tf.random.uniform([batch]) < self._config.evaluators.epsilon
    random_actions = tf.random.uniform([batch], 0, self._num_actions, dtype=tf.int32)
    eval_actions = tf.where(explore, random_actions, greedy)
    return tf.where(is_eval, eval_actions, sampled), logits, new_state

  def _infer_batch(self, requests: List[InferenceRequest]):
    env_ids = np.concatenate([r.env_ids for r in requests])
    run_ids = np.concatenate([r.run_ids for r in requests])
    rewards = np.concatenate([r.rewards for r in requests])
    dones = np.concatenate([r.dones for r in requests])
    truncations = np.concatenate([r.truncations for r in requests])
    observations = np.concatenate([r.observations for r in requests])
    is_eval = np.concatenate([np.full(len(r.env_ids), r.is_eval) for r in requests])
    rows = len(env_ids)

    states = self._env_states
    _, finished_ids, finished_returns, _ = states.begin_step(env_ids, run_ids, rewards, dones)
    prev_actions = states.prev_actions[env_ids]
    states_before = states.gather_core_states(env_ids)

    padded = next(size for size in self._buckets if size >= rows)
    pad = lambda x: pad_rows(x, padded)
    core_state = tf.nest.pack_sequence_as(self._state_template,
                                          [pad(s) for s in states_before])
    actions, logits, new_state = self._inference_fn(
        pad(prev_actions), pad(rewards), pad(dones), pad(observations), core_state,
        pad(is_eval))
    actions = np.asarray(actions)[:rows]
    logits = np.asarray(logits)[:rows]
    new_state = [np.asarray(s)[:rows] for s in tf.nest.flatten(new_state)]

    training = ~is_eval
    unrolls = []
    if training.any():
      unrolls = states.record(env_ids[training], {
          'prev_actions': prev_actions[training], 'rewards': rewards[training],
          'dones': dones[training], 'truncations': truncations[training],
          'observations': observations[training],
          'actions': actions[training], 'behaviour_logits': logits[training],
      }, [s[training] for s in states_before])
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

    for unroll in unrolls:
      self._enqueue(unroll)

    results, start = [], 0
    for request in requests:
      end = start + len(request.env_ids)
      results.append(actions[start:end])
      start = end
    return results

  def _enqueue(self, unroll):
    # Blocking put: when training falls behind, inference (and so every actor) waits.
    while not self._stop.is_set():
      try:
        self._unrolls.put(unroll, timeout=0.5)
        return
      except queue.Full:
        continue

  # ---- Training (the node's main thread) ------------------------------------------

  def _train_step(self, steps, initial_state):
    learner = self._config.learner
    with tf.GradientTape() as tape:
      outputs, _ = self._agent.unroll(steps['prev_actions'], steps['rewards'],
                                      steps['dones'], steps['observations'],
                                      initial_state)
      terms = impala.impala_loss(
          outputs, steps['behaviour_logits'], steps['actions'], steps['rewards'],
          steps['dones'], truncations=steps['truncations'], discount=learner.discount,
          baseline_cost=learner.baseline_cost, entropy_cost=learner.entropy_cost,
          reward_clipping=learner.reward_clipping, reward_scale=learner.reward_scale,
          lambda_=learner.lambda_, clip_rho_threshold=learner.clip_rho_threshold,
          clip_pg_rho_threshold=learner.clip_pg_rho_threshold)
    variables = self._agent.trainable_variables
    gradients = tape.gradient(terms.total_loss, variables)
    gradient_norm = tf.linalg.global_norm(gradients)
    if learner.gradient_clip_norm > 0:
      gradients, _ = tf.clip_by_global_norm(gradients, learner.gradient_clip_norm,
                                            use_norm=gradient_norm)
    self._optimizer.apply_gradients(zip(gradients, variables))
    self._learner_steps.assign_add(1)
    result = terms._asdict()
    result['gradient_norm'] = gradient_norm
    return result

  def _next_batch(self):
    """Blocks for `batch_size` unrolls; returns None if stopped meanwhile."""
    batch = []
    while len(batch) < self._config.learner.batch_size:
      if self._stop.is_set() or program_stopping():
        return None
      try:
        batch.append(self._unrolls.get(timeout=0.5))
      except queue.Empty:
        self._maybe_log()
    return batch

  def _train_on(self, unrolls):
    steps, states = env_states_lib.stack_unrolls(unrolls)
    initial_state = tf.nest.pack_sequence_as(self._state_template, states)
    with self._train_lock:
      terms = self._train_fn(steps, initial_state)
    self._last_losses = {k: float(v) for k, v in terms.items()}

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
          'unroll_queue_size': self._unrolls.qsize(),
      }

  def _maybe_log(self, force=False):
    if not force and not self._progress.due():
      return
    record = self._snapshot()
    record.update(self._last_losses)
    self._progress.write(record)

  # ---- Courier control edge -------------------------------------------------------

  def get_stats(self) -> dict:
    """Counters and recent returns (JSON-able)."""
    return self._snapshot()

  def save(self) -> str:
    """Writes a checkpoint now; returns its path."""
    with self._train_lock:
      with self._stats_lock:
        self._frames_variable.assign(self._frames)
      return self._checkpoints.save()

  def stop(self) -> None:
    """Stops this node (training and inference); the node then stops the program."""
    self._stop.set()

  # ---- Lifecycle ------------------------------------------------------------------

  def _start_inference(self, port: int):
    """Starts the batcher and the inference server (also used by tests)."""
    self._inference_server.start(port)

  def _shutdown_inference(self):
    self._stop.set()
    self._inference_server.shutdown()

  def run(self):
    self._metrics = metrics_lib.MetricsWriter(self._logdir)
    self._progress = metrics_lib.ProgressLog(
        self._metrics, self._config.logging.interval_seconds, self._frames)
    self._start_inference(self._inference_port)
    last_checkpoint = time.time()
    total = self._config.total_environment_frames
    finished = False
    try:
      while not self._stop.is_set() and not program_stopping():
        if self._frames >= total:
          finished = True
          break
        unrolls = self._next_batch()
        if unrolls is None:
          break
        self._train_on(unrolls)
        self._maybe_log()
        if time.time() - last_checkpoint > self._config.logging.checkpoint_interval_seconds:
          self.save()
          last_checkpoint = time.time()
    finally:
      self._shutdown_inference()
      path = self.save()
      self._maybe_log(force=True)
      self._metrics.close()
      print(f'[learner] checkpoint {path}; frames={self._frames}', flush=True)
    if finished:
      print(f'[learner] reached total_environment_frames={total}; stopping the program',
            flush=True)
      stop_program()


def program_stopping() -> bool:
  try:
    return lp.wait_for_stop(0)
  except Exception:  # pylint: disable=broad-except
    return False  # Not running under a Launchpad worker manager (direct use, tests).


def stop_program():
  try:
    lp.stop()
  except Exception:  # pylint: disable=broad-except
    logging.info('No Launchpad program to stop.')


class LearnerClient:
  """What a dereferenced learner handle gives other nodes: both edges."""

  def __init__(self, courier_address: str, inference_address: str):
    self._courier_address = courier_address
    self.inference = inference_edge.InferenceClient(inference_address)
    self._control = None

  @property
  def control(self) -> courier.Client:
    if self._control is None:
      self._control = courier.Client(self._courier_address)
    return self._control


class LearnerHandle(base.Handle[LearnerClient]):

  def __init__(self, courier_address: lp_address.Address,
               inference_address: lp_address.Address):
    self._courier_address = courier_address
    self._inference_address = inference_address

  def dereference(self) -> LearnerClient:
    return LearnerClient(self._courier_address.resolve(),
                         self._inference_address.resolve())


class CentralInferenceNode(courier_node.CourierNode):
  """A CourierNode (control edge) with a second address for the inference stream.

  `constructor(*args, inference_port=...)` builds what runs in the process; its handle
  dereferences to a `LearnerClient`. Every learner kind is one of these.
  """

  def __init__(self, constructor, *args):
    super().__init__(constructor, *args)
    self._inference_address = lp_address.Address(INFERENCE_PORT_NAME)
    self.allocate_address(self._inference_address)

  def create_handle(self) -> LearnerHandle:
    return self._track_handle(LearnerHandle(self._address, self._inference_address))

  def run(self):
    launcher_watch.watch()
    port = lp_address.get_port_from_address(self._inference_address.resolve())
    self._kwargs = dict(self._kwargs, inference_port=port)
    super().run()


class LearnerInferenceNode(CentralInferenceNode):
  """The V-trace learner-inference node: `LearnerInferenceNode(config)`."""

  def __init__(self, config):
    super().__init__(LearnerInference, config)
