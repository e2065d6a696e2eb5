import threading
import time

import numpy as np
import pytest

from seed_graph.inference import batching


def _double(requests):
  return [r * 2 for r in requests]


def test_concurrent_callers_get_their_own_results():
  seen_batches = []

  def process(requests):
    seen_batches.append(sum(len(r) for r in requests))
    return [r * 10 for r in requests]

  batcher = batching.DynamicBatcher(process, max_batch_rows=64, timeout_us=20_000,
                                    request_keys=lambda r: r).start()
  results = {}
  errors = []

  def caller(index):
    keys = np.arange(index * 4, index * 4 + 4)
    try:
      for _ in range(50):
        out = batcher.submit(keys).result(timeout=10)
        np.testing.assert_array_equal(out, keys * 10)
      results[index] = True
    except Exception as e:  # pylint: disable=broad-except
      errors.append(e)

  threads = [threading.Thread(target=caller, args=(i,)) for i in range(8)]
  for t in threads:
    t.start()
  for t in threads:
    t.join()
  batcher.stop()
  assert not errors
  assert len(results) == 8
  assert max(seen_batches) <= 64
  assert max(seen_batches) > 4  # Requests from different callers were batched together.


def test_full_batch_goes_without_waiting_for_timeout():
  batcher = batching.DynamicBatcher(_double, max_batch_rows=4, timeout_us=10_000_000,
                                    request_keys=lambda r: r).start()
  start = time.time()
  futures = [batcher.submit(np.array([2 * i, 2 * i + 1])) for i in range(2)]
  for f in futures:
    f.result(timeout=5)
  assert time.time() - start < 2
  batcher.stop()


def test_batch_a_waiting_request_overflows_goes_without_waiting_for_timeout():
  # An evaluator's 2 rows and actors' 16 in batches of 32: 2 + 16 cannot take another
  # 16, so it goes at once instead of waiting the timeout for rows that cannot come.
  seen_batches = []

  def process(requests):
    seen_batches.append([len(r) for r in requests])
    return requests

  batcher = batching.DynamicBatcher(process, max_batch_rows=32, timeout_us=10_000_000,
                                    request_keys=lambda r: r)
  sizes, start_key, futures = (2, 16, 16, 16), 0, []
  for size in sizes:
    futures.append(batcher.submit(np.arange(start_key, start_key + size)))
    start_key += size
  start = time.time()
  batcher.start()
  for f in futures:
    f.result(timeout=5)
  assert time.time() - start < 2
  assert seen_batches == [[2, 16], [16, 16]]
  batcher.stop()


def _sized_batches(max_batch_rows, timeout_us, actors_known=False):
  """A batcher whose requests are key arrays, negative keys marking background ones;
  returns it and the sizes of the batches it processed, in order. `actors_known`: two
  actors of 16 environments (keys 0-31) have asked once, so it expects both."""
  seen_batches = []

  def process(requests):
    seen_batches.append(sorted(len(r) for r in requests))
    return requests

  batcher = batching.DynamicBatcher(process, max_batch_rows=max_batch_rows,
                                    timeout_us=timeout_us, request_keys=lambda r: r,
                                    is_background=lambda r: r[0] < 0)
  if actors_known:  # Both in before the worker starts: one batch, whatever the timing.
    futures = [batcher.submit(np.arange(0, 16)), batcher.submit(np.arange(16, 32))]
    batcher.start()
    _wait_all(futures)
    seen_batches.clear()
    return batcher, seen_batches
  return batcher.start(), seen_batches


def _both_actors_ask(batcher):
  _wait_all([batcher.submit(np.arange(0, 16)), batcher.submit(np.arange(16, 32))])


def _wait_all(futures):
  for f in futures:
    f.result(timeout=5)


def test_background_request_joins_the_batch_others_open():
  # An evaluator's 2 rows arrive first; the actors' 16 + 16 arrive 0.25 s and 0.45 s
  # later. Had the evaluator's request opened the batch, its 0.4 s timeout would have
  # sent it with one actor only.
  batcher, seen_batches = _sized_batches(max_batch_rows=34, timeout_us=400_000,
                                         actors_known=True)
  futures = [batcher.submit(np.array([-2, -1]))]
  time.sleep(0.25)
  futures.append(batcher.submit(np.arange(0, 16)))
  time.sleep(0.2)
  futures.append(batcher.submit(np.arange(16, 32)))
  for f in futures:
    f.result(timeout=5)
  assert seen_batches == [[2, 16, 16]]
  batcher.stop()


def test_background_request_alone_goes_after_timeout():
  batcher, seen_batches = _sized_batches(max_batch_rows=34, timeout_us=50_000)
  start = time.time()
  batcher.submit(np.array([-2, -1])).result(timeout=5)
  assert 0.04 < time.time() - start < 2
  assert seen_batches == [[2]]
  batcher.stop()


def test_partial_batch_goes_after_timeout():
  batcher = batching.DynamicBatcher(_double, max_batch_rows=100, timeout_us=50_000,
                                    request_keys=lambda r: r).start()
  for f in [batcher.submit(np.array([3])), batcher.submit(np.array([4]))]:
    f.result(timeout=5)
  start = time.time()  # Environment 4 asked a moment ago: it is waited for.
  np.testing.assert_array_equal(batcher.submit(np.array([3])).result(timeout=5), [6])
  assert 0.04 < time.time() - start < 2
  batcher.stop()


def test_batch_goes_once_every_recent_environment_is_in_it():
  # Two actors of 16 in batches of 34 (room for an evaluator's 2): once both actors'
  # requests are in, no one else is coming, so the 10 s timeout is not waited out.
  batcher, seen_batches = _sized_batches(max_batch_rows=34, timeout_us=10_000_000,
                                         actors_known=True)
  start = time.time()
  for _ in range(3):
    _both_actors_ask(batcher)
  assert time.time() - start < 2
  assert seen_batches == [[16, 16]] * 3
  seen_batches.clear()
  batcher.submit(np.arange(0, 16))
  time.sleep(0.3)  # The other actor is still known: its rows are waited for.
  assert seen_batches == []
  batcher.submit(np.arange(16, 32)).result(timeout=5)
  assert seen_batches == [[16, 16]]
  batcher.stop()


def test_an_environment_that_stopped_asking_is_not_waited_for():
  batcher, seen_batches = _sized_batches(max_batch_rows=34, timeout_us=10_000_000,
                                         actors_known=True)
  time.sleep(2.2)  # Twice the batcher's memory of recent environments, and a little.
  start = time.time()
  batcher.submit(np.arange(0, 16)).result(timeout=5)  # The other actor stopped.
  assert time.time() - start < 2
  assert seen_batches == [[16]]
  batcher.stop()


def test_same_keys_go_to_different_batches():
  batches = []

  def process(requests):
    batches.append([r.tolist() for r in requests])
    return requests

  batcher = batching.DynamicBatcher(process, max_batch_rows=100, timeout_us=100_000,
                                    request_keys=lambda r: r)
  first = batcher.submit(np.array([1, 2]))
  second = batcher.submit(np.array([2, 3]))  # Shares env 2 with the first.
  third = batcher.submit(np.array([4]))
  batcher.start()
  for f in (first, second, third):
    f.result(timeout=5)
  batcher.stop()
  assert batches[0] == [[1, 2], [4]]
  assert batches[1] == [[2, 3]]


def test_error_reaches_only_that_batch_and_batcher_survives():
  def process(requests):
    if any(r[0] < 0 for r in requests):
      raise ValueError('bad rows')
    return requests

  batcher = batching.DynamicBatcher(process, max_batch_rows=1, timeout_us=1000,
                                    request_keys=lambda r: r).start()
  with pytest.raises(ValueError, match='bad rows'):
    batcher.submit(np.array([-1])).result(timeout=5)
  np.testing.assert_array_equal(batcher.submit(np.array([5])).result(timeout=5), [5])
  batcher.stop()


def test_stop_fails_waiting_requests():
  batcher = batching.DynamicBatcher(_double, max_batch_rows=4, timeout_us=1000,
                                    request_keys=lambda r: r)
  future = batcher.submit(np.array([1]))
  batcher.stop()
  with pytest.raises(batching.BatcherStopped):
    future.result(timeout=5)
  with pytest.raises(batching.BatcherStopped):
    batcher.submit(np.array([2])).result(timeout=5)


def test_stop_says_whether_the_batch_in_flight_finished(monkeypatch):
  monkeypatch.setattr(batching, '_STOP_WAIT_SECONDS', 0.5)
  for seconds, drained in ((0.1, True), (3.0, False)):
    started = threading.Event()

    def slow(requests, seconds=seconds):
      started.set()
      time.sleep(seconds)
      return _double(requests)

    batcher = batching.DynamicBatcher(slow, max_batch_rows=1, timeout_us=1000,
                                      request_keys=lambda r: r).start()
    future = batcher.submit(np.array([1]))
    assert started.wait(5)
    assert batcher.stop() is drained
    if drained:  # Answered before `stop` returned.
      assert future.done() and future.result().tolist() == [2]


def test_each_worker_keeps_a_batch_in_flight_at_once():
  # Two workers (two inference devices): each batch waits until the other worker has
  # one too, which only happens if both are in flight together.
  both = threading.Barrier(2, timeout=10)
  served = []

  def worker(name):
    def process(requests):
      both.wait()
      served.append(name)
      return _double(requests)
    return process

  batcher = batching.DynamicBatcher([worker('a'), worker('b')], max_batch_rows=1,
                                    timeout_us=1000, request_keys=lambda r: r).start()
  futures = [batcher.submit(np.array([key])) for key in range(4)]
  results = [f.result(timeout=20) for f in futures]
  batcher.stop()
  assert [int(r[0]) for r in results] == [0, 2, 4, 6]
  assert sorted(served) == ['a', 'a', 'b', 'b']


def test_a_key_in_flight_waits_for_its_batch_to_finish():
  # Key 0's first step is being served by one worker; its next request must not go to
  # the other, idle worker before that step is done.
  release = threading.Event()
  log = []

  def process(requests):
    keys = [int(k) for r in requests for k in r]
    log.append(('start', keys))
    if keys == [0] and not release.is_set():
      release.wait(timeout=10)
    log.append(('end', keys))
    return _double(requests)

  batcher = batching.DynamicBatcher([process, process], max_batch_rows=1, timeout_us=1000,
                                    request_keys=lambda r: r).start()
  first = batcher.submit(np.array([0]))
  time.sleep(0.2)  # The first worker holds key 0.
  second = batcher.submit(np.array([0]))
  other = batcher.submit(np.array([1]))
  other.result(timeout=10)  # The idle worker serves other keys meanwhile.
  time.sleep(0.2)
  assert not second.done()
  release.set()
  first.result(timeout=10)
  second.result(timeout=10)
  batcher.stop()
  starts = [i for i, (event, keys) in enumerate(log) if event == 'start' and keys == [0]]
  first_end = log.index(('end', [0]))
  assert len(starts) == 2 and starts[1] > first_end
