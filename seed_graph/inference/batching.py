"""Dynamic batching of inference requests from many callers (SEED RL's central inference).

Callers `submit()` a request of one or more rows and get a Future. A worker thread
collects requests until `max_batch_rows` rows are waiting or `timeout_us` has passed
since the first one arrived, whichever comes first, then hands the whole batch to its
`process_batch(requests) -> results` (one result per request) and resolves the futures.
Given several `process_batch` functions (one per inference device), one worker runs
each, so as many batches can be in flight; whichever worker is free takes the next.
Requests that touch the same keys (environment ids) as one already in the batch, or in
a batch in flight, wait for a later batch, so each environment advances exactly one step
per batch.
"""

import collections
import concurrent.futures
import threading
import time
from typing import Any, Callable, List, Sequence, Union

import numpy as np


class BatcherStopped(RuntimeError):
  """The batcher was stopped before this request was processed."""


_Pending = collections.namedtuple('_Pending', ['request', 'keys', 'future'])


class DynamicBatcher:
  """Batches requests across callers; see the module docstring."""

  def __init__(self,
               process_batch: Union[Callable[[List[Any]], Sequence[Any]],
                                    Sequence[Callable[[List[Any]], Sequence[Any]]]],
               max_batch_rows: int,
               timeout_us: int,
               request_keys: Callable[[Any], np.ndarray],
               name: str = 'inference-batcher'):
    processors = process_batch if isinstance(process_batch, (list, tuple)) else [
        process_batch]
    self._max_batch_rows = max_batch_rows
    self._timeout_s = timeout_us / 1e6
    self._request_keys = request_keys
    self._pending = collections.deque()
    self._condition = threading.Condition()
    self._stopped = False
    self._in_flight_keys = set()
    self._threads = [
        threading.Thread(target=self._loop, args=(processor,), name=f'{name}-{index}',
                         daemon=True) for index, processor in enumerate(processors)]
    self.batches_processed = 0
    self.rows_processed = 0

  def start(self):
    for thread in self._threads:
      thread.start()
    return self

  def stop(self):
    with self._condition:
      self._stopped = True
      pending, self._pending = list(self._pending), collections.deque()
      self._condition.notify_all()
    for item in pending:
      item.future.set_exception(BatcherStopped('inference is shutting down'))
    for thread in self._threads:
      if thread.is_alive() and threading.current_thread() is not thread:
        thread.join(timeout=10)

  def submit(self, request) -> concurrent.futures.Future:
    future = concurrent.futures.Future()
    keys = np.asarray(self._request_keys(request))
    with self._condition:
      if self._stopped:
        future.set_exception(BatcherStopped('inference is shutting down'))
        return future
      self._pending.append(_Pending(request, keys, future))
      self._condition.notify_all()
    return future

  def _take_batch(self) -> List[_Pending]:
    """Blocks until a batch is ready; returns [] when stopped."""
    with self._condition:
      batch, seen_keys, rows, deadline = [], set(), 0, None
      while not self._stopped:
        # Move every compatible waiting request into the batch (scanning again after
        # every wait: keys in flight may have been released meanwhile).
        index = 0
        while index < len(self._pending) and rows < self._max_batch_rows:
          item = self._pending[index]
          item_keys = item.keys.tolist()
          if ((batch and rows + len(item_keys) > self._max_batch_rows) or
              not seen_keys.isdisjoint(item_keys) or
              not self._in_flight_keys.isdisjoint(item_keys)):
            index += 1
            continue
          del self._pending[index]
          batch.append(item)
          seen_keys.update(item_keys)
          rows += len(item_keys)
          if deadline is None:
            deadline = time.monotonic() + self._timeout_s
        if batch and (rows >= self._max_batch_rows or time.monotonic() >= deadline):
          break
        self._condition.wait(deadline - time.monotonic() if batch else None)
      self._in_flight_keys.update(seen_keys)
      return batch

  def _finish(self, batch: List[_Pending]):
    with self._condition:
      for item in batch:
        self._in_flight_keys.difference_update(item.keys.tolist())
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
