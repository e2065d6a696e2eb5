"""Who holds the inference server's stream slots, so stray streams cannot starve actors.

Each open stream holds a server thread. A stream is *unclaimed* until its first valid
request names its environments; from then on it *owns* them (keyed by the first
environment id of the request). The rules:
  * at most `max_unclaimed` streams may be unclaimed at once: a new stream beyond them
    closes the oldest unclaimed one (a real actor claims within milliseconds of opening,
    so a flood of strays evicts strays);
  * an unclaimed stream that sends no valid request within `claim_timeout_seconds` is
    closed;
  * a stream claiming environments another stream owns replaces it (an actor that
    reconnects after its old stream died), and the old one is closed;
  * a stream that leaves the server waiting for its next request longer than
    `idle_timeout_seconds` is closed (its peer is gone or stuck); time the server spends
    answering it does not count.
A closed stream's peer sees CANCELLED and, if it is a real actor, reconnects.
"""

import threading
import time


class _Stream:
  __slots__ = ('context', 'key', 'waiting_since')

  def __init__(self, context):
    self.context = context
    self.key = None
    self.waiting_since = time.monotonic()


class StreamSlots:
  """See the module docstring. The server calls `open` when a stream starts, `claim`
  for each valid request and `waiting` after each answer, and `close` when it ends."""

  def __init__(self, max_unclaimed: int, claim_timeout_seconds: float = 10.0,
               idle_timeout_seconds: float = 60.0):
    self._max_unclaimed = max_unclaimed
    self._claim_timeout = claim_timeout_seconds
    self._idle_timeout = idle_timeout_seconds
    self._lock = threading.Lock()
    self._streams = {}  # id(context) -> _Stream
    self._owners = {}   # key -> _Stream
    self._stopped = threading.Event()
    self.closed_streams = 0  # Closed by these rules (not by their peers).
    self._reaper = threading.Thread(target=self._reap_loop, name='stream-reaper',
                                    daemon=True)

  def start(self):
    self._reaper.start()

  def stop(self):
    self._stopped.set()

  def open(self, context):
    """Registers a new stream (closing the oldest unclaimed one if there are too many)."""
    with self._lock:
      unclaimed = [s for s in self._streams.values() if s.key is None]
      victims = unclaimed[:max(0, len(unclaimed) + 1 - self._max_unclaimed)]
      self._drop(victims)
      self._streams[id(context)] = _Stream(context)  # Dicts keep insertion order.
    self._cancel(victims)

  def claim(self, context, key: int):
    """A valid request of the stream names environments starting at `key`; the server
    now holds it, so the stream's idle clock stops."""
    victims = []
    with self._lock:
      stream = self._streams.get(id(context))
      if stream is None:
        return
      stream.waiting_since = None
      if stream.key != key:
        previous = self._owners.get(key)
        if previous is not None:
          victims.append(previous)
          self._drop(victims)
        stream.key = key
        self._owners[key] = stream
    self._cancel(victims)

  def waiting(self, context):
    """The server waits for the stream's next request: the idle clock runs."""
    with self._lock:
      stream = self._streams.get(id(context))
      if stream is not None:
        stream.waiting_since = time.monotonic()

  def close(self, context):
    with self._lock:
      stream = self._streams.get(id(context))
      if stream is not None and stream.context is context:
        self._drop([stream])

  def counts(self):
    """(owned streams, unclaimed streams)."""
    with self._lock:
      unclaimed = sum(1 for s in self._streams.values() if s.key is None)
      return len(self._streams) - unclaimed, unclaimed

  def _drop(self, streams):
    """Forgets streams at once (with the lock held), so no slot counts a closing one."""
    for stream in streams:
      self._streams.pop(id(stream.context), None)
      if stream.key is not None and self._owners.get(stream.key) is stream:
        del self._owners[stream.key]

  def _cancel(self, streams):
    for stream in streams:
      self.closed_streams += 1
      stream.context.cancel()

  def _reap_loop(self):
    period = min(1.0, self._claim_timeout / 4, self._idle_timeout / 4)
    while not self._stopped.wait(period):
      now = time.monotonic()
      with self._lock:
        expired = [s for s in self._streams.values()
                   if s.waiting_since is not None and now - s.waiting_since >
                   (self._claim_timeout if s.key is None else self._idle_timeout)]
        self._drop(expired)
      self._cancel(expired)
