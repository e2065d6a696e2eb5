"""The actor node: steps a batch of environments and asks the learner for every action.

An actor holds no model. Each step it sends the observations, rewards and `done` flags of
all its environments in one message on the learner's inference stream, and gets back
one action per environment. Environments reset themselves at episode ends. Each actor
run draws random run ids, so a restarted actor makes the learner reset its state.
If the learner is unreachable the actor retries with back-off and resumes.
"""

import os
import threading
import time
from typing import Optional, Sequence

from absl import logging
import grpc
import launchpad as lp
from launchpad.nodes.python import node as python_node
import numpy as np

from seed_graph import envs
from seed_graph import wire

_RETRYABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED,
              grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.UNKNOWN,
              grpc.StatusCode.INTERNAL, grpc.StatusCode.RESOURCE_EXHAUSTED)


def new_run_ids(count: int) -> np.ndarray:
  """Random non-zero int64 ids, one per environment of this actor run."""
  ids = np.frombuffer(os.urandom(8 * count), dtype=np.int64) & np.int64(0x7FFFFFFFFFFFFFFF)
  return ids | np.int64(1)


class Actor:
  """See the module docstring. `run()` loops until the program stops (or `max_steps`)."""

  def __init__(self, learner, env_config, env_ids: Sequence[int], seed: int,
               is_eval: bool = False, max_steps: Optional[int] = None,
               stop_event: Optional[threading.Event] = None,
               max_backoff_seconds: float = 10.0):
    self._learner = learner
    self._env_config = env_config
    self._env_ids = np.asarray(env_ids, np.int32)
    self._seed = seed
    self._is_eval = is_eval
    self._max_steps = max_steps
    self._stop_event = stop_event
    self._max_backoff = max_backoff_seconds
    self.steps = 0
    self.reconnects = 0

  def _stopping(self) -> bool:
    if self._stop_event is not None:
      return self._stop_event.is_set()
    try:
      return lp.wait_for_stop(0)
    except Exception:  # pylint: disable=broad-except
      return False

  def _sleep(self, seconds: float):
    deadline = time.time() + seconds
    while time.time() < deadline and not self._stopping():
      time.sleep(min(0.1, deadline - time.time()))

  def run(self):
    environments = [envs.make_environment(self._env_config, self._seed + i)
                    for i in range(len(self._env_ids))]
    spec = environments[0].observation_spec()
    batch = len(environments)
    observations = np.zeros((batch,) + tuple(spec.shape), spec.dtype)
    rewards = np.zeros(batch, np.float32)
    dones = np.zeros(batch, bool)
    truncations = np.zeros(batch, bool)
    for i, env in enumerate(environments):
      observations[i] = env.reset().observation
    run_ids = new_run_ids(batch)
    meta = {'eval': self._is_eval}
    stream = None
    backoff = 0.1
    role = 'evaluator' if self._is_eval else 'actor'
    try:
      while not self._stopping():
        if self._max_steps is not None and self.steps >= self._max_steps:
          break
        request = wire.encode({'env_ids': self._env_ids, 'run_ids': run_ids,
                               'rewards': rewards, 'dones': dones,
                               'truncations': truncations,
                               'observations': observations}, meta)
        try:
          if stream is None:
            stream = self._learner.inference.open_stream()
          response = stream.infer(request)
        except (grpc.RpcError, StopIteration) as error:
          code = error.code() if isinstance(error, grpc.RpcError) else None
          if code is not None and code not in _RETRYABLE:
            raise RuntimeError(f'{role} {self._env_ids[0]}: the learner rejected our '
                               f'request: {error.details()}') from error
          if stream is not None:
            stream.close()
            stream = None
          self.reconnects += 1
          logging.warning('%s: inference edge unavailable (%s); retrying in %.1fs', role,
                          code, backoff)
          self._sleep(backoff)
          backoff = min(backoff * 2, self._max_backoff)
          continue
        backoff = 0.1
        actions = wire.decode(response)[0]['actions']
        for i, env in enumerate(environments):
          timestep = env.step(actions[i])
          rewards[i] = timestep.reward
          if timestep.last():
            dones[i] = True
            # dm_env.truncation (a time limit) keeps discount 1; a terminal state has 0.
            truncations[i] = timestep.discount is not None and timestep.discount > 0
            observations[i] = env.reset().observation
          else:
            dones[i] = False
            truncations[i] = False
            observations[i] = timestep.observation
        self.steps += 1
    finally:
      if stream is not None:
        stream.close()
      for env in environments:
        close = getattr(env, 'close', None)
        if close:
          close()


class ActorNode(python_node.PyClassNode):
  """An actor in a program: `ActorNode(learner_handle, env_config, env_ids, seed)`."""

  def __init__(self, learner, env_config, env_ids: Sequence[int], seed: int):
    super().__init__(Actor, learner, env_config, list(env_ids), seed)
