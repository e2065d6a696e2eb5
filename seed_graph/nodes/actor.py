"""The actor node: steps a batch of environments and asks the learner for every action.

An actor holds no model. Each step it sends the observations, rewards and `done` flags of
all its environments in one message on the learner's inference stream, and gets back
one action per environment. Environments reset themselves at episode ends. Each actor
run draws random run ids, so a restarted actor makes the learner reset its state.
If the learner is unreachable the actor retries with back-off and resumes (a restarted
learner comes back on the same address). When the program stops, the actor's open
streams are cancelled, so an actor waiting for a learner that is down stops at once
instead of at the end of the stop grace period.
"""

import os
import threading
import time
from typing import Optional, Sequence

from absl import logging
import grpc
from launchpad.nodes.python import node as python_node
import numpy as np
import ml_collections

from seed_graph.envs import backends as env_backends
from seed_graph.config import id_ranges
from seed_graph.lifecycle import launcher_watch
from seed_graph.lifecycle import program_stop
from seed_graph.inference import messages

_RETRYABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED,
              grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.UNKNOWN,
              grpc.StatusCode.INTERNAL, grpc.StatusCode.RESOURCE_EXHAUSTED)


_QUIET_OUTAGE_SECONDS = 5.0


def new_run_ids(count: int) -> np.ndarray:
  """Random non-zero int64 ids, one per environment of this actor run."""
  ids = np.frombuffer(os.urandom(8 * count), dtype=np.int64) & np.int64(0x7FFFFFFFFFFFFFFF)
  return ids | np.int64(1)


class Actor:
  """See the module docstring. `run()` loops until the program stops (or `max_steps`).

  With `env_groups=G > 1` the environments are split into G groups, each with its own
  stream and one request in flight: the actor steps one group while the learner
  answers the others, so inference latency overlaps environment work.
  """

  def __init__(self, learner, env_config: ml_collections.ConfigDict, env_ids: Sequence[int],
               seed: int, is_eval: bool = False, max_steps: Optional[int] = None,
               stop_event: Optional[threading.Event] = None,
               max_backoff_seconds: float = 10.0, env_groups: int = 1):
    if not 1 <= env_groups <= len(env_ids):
      raise ValueError(f'env_groups: {env_groups} must be in [1, {len(env_ids)}]')
    self._learner = learner
    self._env_config = env_config
    self._env_ids = np.asarray(env_ids, np.int32)
    self._seed = seed
    self._is_eval = is_eval
    self._max_steps = max_steps
    # Outside a Launchpad worker (direct use) and without an event, nothing stops it
    # but `max_steps`.
    self._stop_event = stop_event or program_stop.stop_event() or threading.Event()
    self._max_backoff = max_backoff_seconds
    self._groups = id_ranges.env_group_slices(len(env_ids), env_groups)
    self._streams = []  # The current connection's streams ([] when not connected).
    self.steps = 0
    self.reconnects = 0

  def _stopping(self) -> bool:
    return self._stop_event.is_set()

  def _sleep(self, seconds: float):
    deadline = time.time() + seconds
    while time.time() < deadline and not self._stopping():
      time.sleep(min(0.1, deadline - time.time()))

  def run(self):
    launcher_watch.watch()
    environments = ActorEnvironments(self._env_config, self._env_ids, self._seed,
                                    self._is_eval, self._groups)
    backoff, unavailable_since = 0.1, None
    finished = threading.Event()
    threading.Thread(target=self._cancel_on_stop, args=(finished,), daemon=True,
                     name='cancel-on-stop').start()
    try:
      while not self._stopping():
        if self._max_steps is not None and self.steps >= self._max_steps:
          break
        try:
          if not self._streams:
            self._open_streams(environments)
          self._step(environments)
        except (grpc.RpcError, StopIteration) as error:
          self._raise_if_rejected(error)
          self._close_streams()
          self.reconnects += 1
          unavailable_since = unavailable_since or time.time()
          # Short outages are routine (a run's end, a learner restart's first seconds):
          # a warning only once one lasts.
          log = (logging.warning if time.time() - unavailable_since > _QUIET_OUTAGE_SECONDS
                 else logging.info)
          log('%s: inference edge unavailable (%s); retrying in %.1fs', self._role,
              _code(error), backoff)
          self._sleep(backoff)
          backoff = min(backoff * 2, self._max_backoff)
          continue
        backoff, unavailable_since = 0.1, None
        self.steps += 1
    finally:
      finished.set()
      self._close_streams()
      environments.close()

  def _cancel_on_stop(self, finished: threading.Event):
    """Cancels the open streams once the program stops: a blocked `receive()` (the
    learner is down, or a request waits for a server that is not up yet) then raises
    CANCELLED and `run` sees the stop. Repeats until `run` ends: a stream opened just
    as the stop came is cancelled on the next pass."""
    while not finished.wait(0.5):
      if self._stop_event.is_set():
        for stream in list(self._streams):
          stream.close()

  @property
  def _role(self) -> str:
    return 'evaluator' if self._is_eval else 'actor'

  def _open_streams(self, environments):
    """One stream per env group, each with that group's first request in flight."""
    self._streams = []
    for group in self._groups:
      self._streams.append(self._learner.inference.open_stream())
      self._streams[-1].send(environments.request(group))

  def _close_streams(self):
    streams, self._streams = self._streams, []
    for stream in streams:
      stream.close()

  def _step(self, environments):
    """Steps every group with its answer, then sends its next request."""
    # At max_steps, send nothing more: no request is left that we never read.
    last = self._max_steps is not None and self.steps + 1 >= self._max_steps
    for group, stream in zip(self._groups, self._streams):
      environments.step(group, messages.decode_actions(stream.receive()))
      if not last:
        stream.send(environments.request(group))

  def _raise_if_rejected(self, error):
    code = _code(error)
    if code is not None and code not in _RETRYABLE:
      raise RuntimeError(f'{self._role} {self._env_ids[0]}: the learner rejected our '
                         f'request: {error.details()}') from error


def _code(error):
  return error.code() if isinstance(error, grpc.RpcError) else None


class ActorEnvironments:
  """An actor's environments (`seed_graph.envs.backends`, stepped a group at a time) and
  what each showed last, as request rows. Each batch draws new run ids."""

  def __init__(self, env_config: ml_collections.ConfigDict, env_ids: np.ndarray, seed: int,
               is_eval: bool, groups: Sequence[slice] = ()):
    self._env_ids = env_ids
    self._is_eval = is_eval
    batch = len(env_ids)
    self._environments = env_backends.make(env_config, [seed + i for i in range(batch)],
                                          groups or [slice(0, batch)])
    self._observations = np.zeros((batch,) + self._environments.observation_shape,
                                  self._environments.observation_dtype)
    self._rewards = np.zeros(batch, np.float32)
    self._dones = np.zeros(batch, bool)
    self._truncations = np.zeros(batch, bool)
    self._game_overs = np.zeros(batch, bool)
    self._environments.reset(self._observations)
    self._run_ids = new_run_ids(batch)

  @property
  def num_actions(self) -> int:
    return self._environments.num_actions

  @property
  def frames_per_step(self) -> int:
    """Environment frames one step of one environment advances."""
    return self._environments.frames_per_step

  def request(self, group: slice) -> bytes:
    return messages.encode_request(
        self._env_ids[group], self._run_ids[group], self._rewards[group],
        self._dones[group], self._truncations[group], self._observations[group],
        self._is_eval, self._game_overs[group])

  def step(self, group: slice, actions: np.ndarray):
    self._environments.step(group, actions, self._rewards, self._dones, self._truncations,
                            self._game_overs, self._observations)

  def frame(self, index: int):
    """Environment `index`'s picture (its `frame()`, see `envs.contract`), or None if it
    draws none."""
    return self._environments.frame(index)

  def close(self):
    self._environments.close()


class ActorNode(python_node.PyClassNode):
  """An actor in a program: `ActorNode(learner_handle, env_config, env_ids, seed,
  env_groups=1)`."""
  SUPERVISION_ROLE = 'acting'  # Always restarted, stopped first (launch.supervision).

  def __init__(self, learner, env_config: ml_collections.ConfigDict, env_ids: Sequence[int],
               seed: int, env_groups: int = 1):
    super().__init__(Actor, learner, env_config, list(env_ids), seed,
                     env_groups=env_groups)
