"""The learner-inference process, shared by every algorithm: it owns the inference edge,
every environment's state, checkpoints, metrics and the run loop, and calls one
algorithm object (`seed_graph.algos.base.Algorithm`) for what differs between algorithms.

One inference step (a batcher thread, `infer_batch`): wait while the algorithm takes no
data, merge the callers' requests, start new actor runs afresh, count episodes, ask the
algorithm for its policy inputs, run the padded policy for every row, hand it the
training rows, store each environment's action and recurrent state, answer every caller.
With several inference devices one batcher thread serves each; only the policy call
runs outside the step lock.

The run loop (the node's main thread, `run`): `prepare`, serve, then until stopped or
`total_environment_frames` is reached: `next_batch`, `train`, log, checkpoint on time.
Shutdown follows one order (see `_finish`).
"""

import functools
import threading
import time
from typing import Mapping, Optional, Sequence

from absl import logging
import tensorflow as tf
import ml_collections

from seed_graph.nodes.learner import agent_states
from seed_graph.nodes.learner import checkpoints as checkpoints_lib
from seed_graph import envs
from seed_graph.config import id_ranges
from seed_graph.nodes.learner import tuning
from seed_graph.nodes.learner import planned_restart
from seed_graph.nodes.learner import metrics as metrics_lib
from seed_graph.lifecycle import program_stop
from seed_graph.lifecycle import restarts
from seed_graph.nodes.learner import task_statistics
from seed_graph.algos import base
from seed_graph.algos import learner_devices
from seed_graph.inference import messages
from seed_graph.inference import server as server_lib
from seed_graph.inference import transport


class Learner:
  """See the module docstring. `make_algorithm(config, context, *args)` builds the
  `Algorithm` (its variables too, so a checkpoint restores into them); the shell creates it
  inside `devices.variable_scope()`. `tasks` ({name: environment ids}) adds episode returns
  per task to the statistics (`seed_graph.nodes.learner.task_statistics`);
  `planned_restarts` lets it restart when its memory grows
  (`seed_graph.nodes.learner.planned_restart`)."""

  def __init__(self, config: ml_collections.ConfigDict, make_algorithm, *algorithm_args,
               inference_port: Optional[int] = None, inference_host: str = '[::]',
               tasks: Optional[Mapping[str, Sequence[int]]] = None,
               planned_restarts: bool = False):
    self._config = config
    self._inference_port = inference_port
    self._inference_host = inference_host
    self._stop = threading.Event()
    self._train_lock = threading.Lock()
    self._stats_lock = threading.Lock()
    self._step_lock = threading.Lock()
    # First: a CPU split must be made before TensorFlow initializes in this process.
    self.devices = learner_devices.make_learner_devices(config.learner)
    self.env_config = envs.acting_config(config.env, make_algorithm.stacks_frames)
    spec = envs.read_spec(self.env_config)
    self._frames_per_step = spec.frames_per_step
    num_envs, num_training_envs = id_ranges.num_envs(config), id_ranges.num_training_envs(config)
    context = base.AlgorithmContext(spec, num_envs, num_training_envs, self._stop,
                                    self.devices)
    # `seed` seeds the network's initialization (and TensorFlow's sampling after it).
    tf.random.set_seed(config.seed)
    with self.devices.variable_scope():
      self.algorithm = make_algorithm(config, context, *algorithm_args)
    example_inputs = self.algorithm.example_policy_inputs()
    self._state_template = example_inputs[4]

    self._checkpoints = checkpoints_lib.LearnerCheckpoints(
        config.logdir, self.algorithm.checkpoint_items(), self.algorithm.hyperparameters)
    self._frames = self._checkpoints.frames
    # Which checkpoint was restored (None: a fresh start), and what was skipped as damaged.
    self.resumed_from = self._checkpoints.resumed_from
    self.damaged_checkpoints = self._checkpoints.damaged

    self._env_states = agent_states.AgentStates(
        num_envs, [tuple(s.shape[1:]) for s in tf.nest.flatten(self._state_template)])
    self._episodes = agent_states.EpisodeStatistics(
        num_envs, num_training_envs, config.logging.return_window,
        config.logging.eval_return_window, spec.frames_per_step)
    if self.resumed_from:
      self._episodes.restore(self._checkpoints.take_episode_returns())
    self._tasks = tasks and task_statistics.TaskStatistics(
        tasks, num_envs, num_training_envs, config.logging.return_window,
        config.logging.eval_return_window)
    self._server = self._make_inference(spec, example_inputs, num_envs, num_training_envs)
    self._last_losses, self._skipped_updates = {}, 0
    self._metrics = self._progress = None  # `run` opens them.
    # Only a supervised node process can restart (`planned_restart`); not a thread of local_mt.
    self._memory = planned_restart.MemoryBound(
        config.logging.memory_restart_percent if planned_restarts else 0.0,
        int(config.logging.memory_restart_min_mib * 2**20))
    self.restart_reason = None  # Set when the learner stops for a planned restart.
    # Weights and hyperparameters, as a population controller changes them.
    self.tuning = tuning.LearnerTuning(self.algorithm, self._train_lock)

  def _make_inference(self, spec, example_inputs, num_envs: int, num_training_envs: int):
    """The inference server; `policies`: a traced policy per inference device, on its own."""
    inference = self._config.inference

    def placed_act(device, *inputs):
      with self.devices.inference_scope(device):
        return self.algorithm.act(*inputs)

    self.policies = []
    for device in range(self.devices.num_inference):
      with self.devices.inference_device(device):
        self.policies.append(server_lib.PaddedPolicy(
            functools.partial(placed_act, device), example_inputs, inference.batch_size,
            jit_compile=inference.jit_compile))
    return server_lib.InferenceServer(
        messages.RequestParser(spec.observation_shape, spec.observation_dtype,
                               num_training_envs, num_envs, inference.batch_size),
        self.infer_batch, inference.batch_size, inference.timeout_us,
        max_callers=num_envs, num_workers=self.devices.num_inference)

  def restore(self, checkpoint):
    """Loads a checkpoint of this learner's, its path or its values by key (the newest
    intact one is loaded at construction); `LearnerCheckpoints.restore`'s status."""
    status = self._checkpoints.restore(checkpoint)
    self._frames = self._checkpoints.frames
    return status

  @property
  def learner_steps(self) -> int:
    return int(self._checkpoints.learner_steps.numpy())

  # ---- Inference (the batcher threads) -------------------------------------------

  def run_policy(self, device: int, *inputs):
    """The algorithm's traced policy on inference device `device`: `act`'s inputs as
    NumPy rows -> (actions, extras, new core state) as NumPy."""
    with self.devices.inference_device(device):
      return self.policies[device](*inputs)

  def infer_batch(self, requests, device: int = 0):
    """One inference step for parsed requests, on inference device `device`; returns
    the actions of each. Batches in flight together hold distinct environments."""
    self.algorithm.wait_to_act()
    step = messages.merge_requests(requests)
    env_ids = step.env_ids
    with self._step_lock:
      new_run = self._env_states.begin_step(env_ids, step.run_ids)
      finished = self._episodes.update(env_ids, step.rewards, step.game_overs, new_run,
                                       step.run_ids, step.truncations)
      if self._tasks:
        self._tasks.add(*finished)
      if new_run.any():
        self.algorithm.reset(env_ids[new_run])
      prev_actions = self._env_states.prev_actions[env_ids]
      states_before = self._env_states.gather_core_states(env_ids)
      observations, exploration = self.algorithm.policy_inputs(step, new_run)
    actions, extras, new_state = self.run_policy(
        device, prev_actions, step.rewards, step.dones, observations,
        tf.nest.pack_sequence_as(self._state_template, states_before), exploration)
    training = ~step.is_eval
    with self._step_lock:
      if training.any():
        self.algorithm.record(step, training, prev_actions, actions, extras,
                              states_before)
      self._env_states.end_step(env_ids, actions, tf.nest.flatten(new_state))
    with self._stats_lock:
      self._frames += int(training.sum()) * self._frames_per_step
    return messages.split_rows(actions, requests)

  # ---- Training (the node's main thread) ------------------------------------------

  def _train(self, batch):
    with self._train_lock:
      losses = self.algorithm.train(batch)
      if losses.pop('update_applied'):
        self._checkpoints.learner_steps.assign_add(1)
      else:
        self._skipped_updates += 1
        logging.warning('skipped a training batch: non-finite loss or gradients')
    self._last_losses = losses

  def _train_until_done(self) -> bool:
    """Trains until stopped (False), `total_environment_frames` is reached (True) or,
    at a checkpoint, a planned restart is due (False, `restart_reason` set)."""
    last_checkpoint = time.time()
    while not self.stopping():
      if self._frames >= self._config.total_environment_frames:
        return True
      batch = self.algorithm.next_batch()
      if batch is not None:
        self._train(batch)
        if (time.time() - last_checkpoint >
            self._config.logging.checkpoint_interval_seconds):
          self.save()
          last_checkpoint = time.time()
          self.restart_reason = self._memory.check()
          if self.restart_reason:
            return False
      self._log()
    return False

  def _log(self, force=False):
    if force or self._progress.due():
      self._progress.write(dict(self.get_stats(), **self._last_losses))

  # ---- Courier control edge -------------------------------------------------------

  def get_stats(self) -> dict:
    """Counters, recent returns and the algorithm's own figures (JSON-able)."""
    with self._stats_lock:
      stats = {'frames': self._frames}
    stats['learner_steps'] = int(self._checkpoints.learner_steps.numpy())
    stats['environments_seen'] = self._env_states.num_seen()
    stats.update(self._episodes.snapshot())
    stats.update(self._tasks.snapshot() if self._tasks else {})
    stats.update(self._server.stats(), skipped_updates=self._skipped_updates)
    stats.update(restarts.read(self._config.logdir))
    stats.update(self.algorithm.stats())
    stats.update(self.tuning.stats())
    return stats

  def save(self, in_flight: bool = False) -> str:
    """Writes a checkpoint now; its path. `in_flight`: no inference runs (`_finish`)."""
    with self._train_lock:
      self.algorithm.before_checkpoint()
      with self._stats_lock:
        frames = self._frames
      return self._checkpoints.save(frames, self._episodes.state(in_flight))

  def stop(self) -> None:
    """Stops training and inference; the node saves and then stops the program."""
    self._stop.set()

  # ---- Lifecycle ------------------------------------------------------------------

  def stopping(self) -> bool:
    """Whether `stop()` was called or the Launchpad program is stopping."""
    return self._stop.is_set() or program_stop.stopping()

  def serve(self, port: int, host: str = '[::]'):
    """Starts batching and the inference server on `host:port`, for streams that carry
    this run's secret (when a launcher gave the process one)."""
    self._server.start(port, transport.run_secret(),
                       self._config.inference.keepalive_seconds, host)

  def shutdown(self):
    """Stops inference and closes the server (what `run` does last)."""
    self._stop.set()
    self._server.shutdown()

  def run(self):
    self._metrics = metrics_lib.MetricsWriter(self._config.logdir)
    self._progress = metrics_lib.ProgressLog(
        self._metrics, self._config.logging.interval_seconds, self._frames)
    if not self.algorithm.prepare(self.stopping):
      self._metrics.close()
      return
    self.serve(self._inference_port, self._inference_host)
    finished = False
    try:
      finished = self._train_until_done()
    finally:
      self._finish(finished)

  def _finish(self, finished: bool):
    """The shutdown order, for every algorithm:
    1. Batching stops, so nothing more reaches the algorithm; the server stays up and
       answers UNAVAILABLE, so actors back off at once and notice the program stop.
    2. The algorithm closes (flushes what it holds, releases its datasets while the
       nodes they read from are still up).
    3. The checkpoint (every batch done: the games in flight too) and metrics are written.
    4. At `total_environment_frames` or after `stop()`, the program is told to stop;
       actors get 2 s to see that while backing off.
    5. The server closes, also if a step before failed: an open stream's handler
       thread would otherwise keep the process from exiting.
    """
    stop_called = self._stop.is_set()  # Only `stop()` or `shutdown()` sets it before this.
    self._stop.set()
    drained = self._server.stop_batching()  # No inference step left running.
    try:
      self.algorithm.close()
      path = self.save(in_flight=drained)
      self._log(force=True)
      self._metrics.close()
      kept = ', games in flight kept' if drained else ''
      print(f'[learner] checkpoint {path}; frames={self._frames}{kept}', flush=True)
      if self.restart_reason:
        print(f'[learner] restarting as planned: {self.restart_reason}', flush=True)
      elif finished or stop_called:
        reason = (f'reached total_environment_frames={self._config.total_environment_frames}'
                  if finished else 'stop() was called')
        print(f'[learner] {reason}; stopping the program', flush=True)
        program_stop.stop_program()
        time.sleep(2.0)
    finally:
      self._server.shutdown()
