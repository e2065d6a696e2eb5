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
from seed_graph import launcher_watch
from seed_graph import layout
from seed_graph import wire

_RETRYABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED,
              grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.UNKNOWN,
              grpc.StatusCode.INTERNAL, grpc.StatusCode.RESOURCE_EXHAUSTED)


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

  def __init__(self, learner, env_config, env_ids: Sequence[int], seed: int,
               is_eval: bool = False, max_steps: Optional[int] = None,
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
    self._stop_event = stop_event
    self._max_backoff = max_backoff_seconds
    self._groups = layout.env_group_slices(len(env_ids), env_groups)
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
    launcher_watch.watch()
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

    def request(group: slice) -> bytes:
      return wire.encode({'env_ids': self._env_ids[group], 'run_ids': run_ids[group],
                          'rewards': rewards[group], 'dones': dones[group],
                          'truncations': truncations[group],
                          'observations': observations[group]}, meta)

    def step_group(group: slice, actions: np.ndarray):
      for i, action in zip(range(group.start, group.stop), actions):
        timestep = environments[i].step(action)
        rewards[i] = timestep.reward
        if timestep.last():
          dones[i] = True
          # dm_env.truncation (a time limit) keeps discount 1; a terminal state has 0.
          truncations[i] = timestep.discount is not None and timestep.discount > 0
          observations[i] = environments[i].reset().observation
        else:
          dones[i] = False
          truncations[i] = False
          observations[i] = timestep.observation

    streams = None
    backoff = 0.1
    role = 'evaluator' if self._is_eval else 'actor'
    try:
      while not self._stopping():
        if self._max_steps is not None and self.steps >= self._max_steps:
          break
        try:
          if streams is None:
            streams = []
            for group in self._groups:
              streams.append(self._learner.inference.open_stream())
              streams[-1].send(request(group))
          # At max_steps, send nothing more: no request is left that we never read.
          last = self._max_steps is not None and self.steps + 1 >= self._max_steps
          for group, stream in zip(self._groups, streams):
            actions = wire.decode(stream.receive())[0]['actions']
            step_group(group, actions)
            if not last:
              stream.send(request(group))
        except (grpc.RpcError, StopIteration) as error:
          code = error.code() if isinstance(error, grpc.RpcError) else None
          if code is not None and code not in _RETRYABLE:
            raise RuntimeError(f'{role} {self._env_ids[0]}: the learner rejected our '
                               f'request: {error.details()}') from error
          for stream in streams or ():
            stream.close()
          streams = None
          self.reconnects += 1
          logging.warning('%s: inference edge unavailable (%s); retrying in %.1fs', role,
                          code, backoff)
          self._sleep(backoff)
          backoff = min(backoff * 2, self._max_backoff)
          continue
        backoff = 0.1
        self.steps += 1
    finally:
      for stream in streams or ():
        stream.close()
      for env in environments:
        close = getattr(env, 'close', None)
        if close:
          close()


class ActorNode(python_node.PyClassNode):
  """An actor in a program: `ActorNode(learner_handle, env_config, env_ids, seed,
  env_groups=1)`."""

  def __init__(self, learner, env_config, env_ids: Sequence[int], seed: int,
               env_groups: int = 1):
    super().__init__(Actor, learner, env_config, list(env_ids), seed,
                     env_groups=env_groups)
