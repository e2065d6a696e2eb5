"""Dynamic batching of inference requests from many callers (SEED RL's central inference).

Callers `submit()` a request of one or more rows and get a Future. A worker thread
collects requests until the batch is full (`max_batch_rows` rows, or a waiting request
that would overflow it) or `timeout_us` has passed since the first one arrived,
whichever comes first, then hands the whole batch to its
`process_batch(requests) -> results` (one result per request) and resolves the futures.
Given several `process_batch` functions (one per inference device), one worker runs
each, so as many batches can be in flight; whichever worker is free takes the next.
Requests that touch the same keys (environment ids) as one already in the batch, or in
a batch in flight, wait for a later batch, so each environment advances exactly one step
per batch. Background requests (`is_background`: the evaluators') join batches other
requests open and open one themselves only after waiting `timeout_us`. A batch also goes
as soon as every environment that asked in the last second (background ones aside) is in
it or in flight: no one else is coming, so waiting out the timeout would only idle the
actors (two actors of 16 environments and 34 rows, the evaluator's 2 included).
"""

import collections
import concurrent.futures
import threading
import time
from typing import Any, Callable, List, Optional, Sequence, Union

import numpy as np


class BatcherStopped(RuntimeError):
  """The batcher was stopped before this request was processed."""


# An environment that asked within this many seconds is expected to ask again soon.
_RECENT_SECONDS = 1.0
# How long `stop` waits for each worker's batch in flight.
_STOP_WAIT_SECONDS = 10.0

# `keys`: the request's keys as a Python list, converted once (the scans read it often).
_Pending = collections.namedtuple('_Pending',
                                  ['request', 'keys', 'future', 'arrived', 'background'])


class DynamicBatcher:
  """Batches requests across callers; see the module docstring."""

  def __init__(self,
               process_batch: Union[Callable[[List[Any]], Sequence[Any]],
                                    Sequence[Callable[[List[Any]], Sequence[Any]]]],
               max_batch_rows: int,
               timeout_us: int,
               request_keys: Callable[[Any], np.ndarray],
               name: str = 'inference-batcher',
               is_background: Optional[Callable[[Any], bool]] = None):
    processors = process_batch if isinstance(process_batch, (list, tuple)) else [
        process_batch]
    self._max_batch_rows = max_batch_rows
    self._timeout_s = timeout_us / 1e6
    self._request_keys = request_keys
    self._is_background = is_background or (lambda request: False)
    self._pending = collections.deque()
    self._condition = threading.Condition()
    self._stopped = False
    self._in_flight_keys = set()
    self._recent = {}  # Foreground key -> when a request last carried it.
    self._next_prune = 0.0
    self._threads = [
        threading.Thread(target=self._loop, args=(processor,), name=f'{name}-{index}',
                         daemon=True) for index, processor in enumerate(processors)]
    self.batches_processed = 0
    self.rows_processed = 0

  def start(self):
    for thread in self._threads:
      thread.start()
    return self

  def stop(self) -> bool:
    """Fails the waiting requests and every later one, then waits a while for each
    worker's batch in flight; whether all of them finished (and answered)."""
    with self._condition:
      self._stopped = True
      pending, self._pending = list(self._pending), collections.deque()
      self._condition.notify_all()
    for item in pending:
      item.future.set_exception(BatcherStopped('inference is shutting down'))
    for thread in self._threads:
      if thread.is_alive() and threading.current_thread() is not thread:
        thread.join(timeout=_STOP_WAIT_SECONDS)
    return not any(thread.is_alive() for thread in self._threads)

  def submit(self, request) -> concurrent.futures.Future:
    future = concurrent.futures.Future()
    keys = np.asarray(self._request_keys(request)).tolist()
    with self._condition:
      if self._stopped:
        future.set_exception(BatcherStopped('inference is shutting down'))
        return future
      now, background = time.monotonic(), bool(self._is_background(request))
      self._pending.append(_Pending(request, keys, future, now, background))
      if not background:
        self._recent.update(dict.fromkeys(keys, now))
      self._condition.notify_all()
    return future

  def _take_batch(self) -> List[_Pending]:
    """Blocks until a batch is ready; returns [] when stopped."""
    with self._condition:
      batch, seen_keys = [], set()
      rows, deadline, overflow = 0, None, False
      while not self._stopped:
        # Move every compatible waiting request into the batch (scanning again after
        # every wait: keys in flight may have been released meanwhile).
        now, index, background_due = time.monotonic(), 0, None
        while index < len(self._pending) and rows < self._max_batch_rows:
          item = self._pending[index]
          item_keys = item.keys
          if not batch and item.background and now < item.arrived + self._timeout_s:
            # Background requests (evaluators') join batches that others open, so
            # their rows do not split the actors' requests over two batches; one
            # opens a batch itself only once it has waited a whole timeout.
            due = item.arrived + self._timeout_s
            background_due = due if background_due is None else min(background_due, due)
            index += 1
            continue
          if batch and rows + len(item_keys) > self._max_batch_rows:
            # No room: waiting longer cannot fill this batch better, and the request
            # left out waits for it.
            overflow = True
            index += 1
            continue
          if (not seen_keys.isdisjoint(item_keys) or
              not self._in_flight_keys.isdisjoint(item_keys)):
            index += 1
            continue
          del self._pending[index]
          batch.append(item)
          seen_keys.update(item_keys)
          rows += len(item_keys)
          if deadline is None:
            # An overdue background request goes at once, with whatever can join it.
            deadline = now if item.background else now + self._timeout_s
            index = 0  # Background requests skipped so far may join now.
        if batch and (rows >= self._max_batch_rows or overflow or
                      time.monotonic() >= deadline or self._nobody_else_is_coming(seen_keys)):
          break
        due = deadline if batch else background_due
        self._condition.wait(None if due is None else max(0.0, due - time.monotonic()))
      self._in_flight_keys.update(seen_keys)
      return batch

  def _nobody_else_is_coming(self, batch_keys: set) -> bool:
    """Whether every recently seen foreground key is in `batch_keys` or in flight."""
    now = time.monotonic()
    if now >= self._next_prune:  # Environments that left (a stopped actor) expire.
      self._recent = {k: t for k, t in self._recent.items() if t > now - _RECENT_SECONDS}
      self._next_prune = now + _RECENT_SECONDS
    if len(self._recent) > len(batch_keys) + len(self._in_flight_keys):
      return False  # The common case under load, without a scan.
    return all(key in batch_keys or key in self._in_flight_keys for key in self._recent)

  def _finish(self, batch: List[_Pending]):
    with self._condition:
      for item in batch:
        self._in_flight_keys.difference_update(item.keys)
      self._condition.notify_all()

  def _loop(self, process_batch):
    while True:
      batch = self._take_batch()
      if not batch:
        return
      try:
        results = process_batch([item.request for item in batch])
      except BaseException as e:  # Every caller of this batch learns why.
        self._finish(batch)
        for item in batch:
          item.future.set_exception(e)
        continue
      self._finish(batch)
      with self._condition:
        self.batches_processed += 1
        self.rows_processed += sum(len(item.keys) for item in batch)
      for item, result in zip(batch, results):
        item.future.set_result(result)
