"""The launcher's status line: what the learner's `get_stats` says, as one line.

  0:02:35 | 1.23M/10M frames (12%) | 5.1k fps (10 s) 4.9k (60 s) | return 184 eval 200
  | 1,234 steps | batch 17.9/64 | queue 3 | replay 1,440 sequences | restarts actor 2
  | waiting actor 1

Before any episode has ended, `return - eval -` reads `no episode finished yet`.

`StatusReporter` polls the learner's control edge (Courier) from a thread of the
launcher, so the line appears as soon as the learner's process answers, before the first
training step, and costs the nodes one small call a second. Rates come from the
differences between samples (`RunStatus`), so they need no clock in the learner.
"""

import collections
import socket
import threading
import time
from typing import Optional, Sequence, Tuple

from seed_graph.inference import transport
from seed_graph.launch.supervision import console as console_lib

_WINDOWS = (10.0, 60.0)


def _si(value: float) -> str:
  for threshold, suffix in ((1e9, 'G'), (1e6, 'M'), (1e3, 'k')):
    if abs(value) >= threshold:
      return f'{value / threshold:.3g}{suffix}'
  return f'{value:.3g}'


def _clock(seconds: float) -> str:
  minutes, seconds = divmod(int(seconds), 60)
  return f'{minutes // 60}:{minutes % 60:02d}:{seconds:02d}'


def _return(value) -> str:
  return '-' if value is None else f'{value:.3g}'


class RunStatus:
  """`update(now, stats)` with each `get_stats` answer; `text(now)` is the line."""

  def __init__(self, total_frames: int, inference_batch_size: int, started: float):
    self._total = total_frames
    self._batch_size = inference_batch_size
    self._started = started
    self._samples = collections.deque()  # (time, stats), the last 60 s and one more.
    self._stats: Optional[dict] = None
    self.last_update: Optional[float] = None  # When the learner last answered.

  def update(self, now: float, stats: dict):
    self._stats = stats
    self.last_update = now
    self._samples.append((now, stats))
    while len(self._samples) > 2 and self._samples[1][0] <= now - _WINDOWS[-1]:
      self._samples.popleft()

  @property
  def stats(self) -> Optional[dict]:
    """The learner's latest answer."""
    return self._stats

  def _rate(self, key: str, window: float) -> Optional[float]:
    """Growth of `key` per second over about the last `window` seconds."""
    now, latest = self._samples[-1]
    # The newest sample at least `window` old, or the oldest there is.
    then, oldest = next(((t, s) for t, s in reversed(self._samples) if t <= now - window),
                        self._samples[0])
    if now - then < 1.0:
      return None
    return (latest.get(key, 0) - oldest.get(key, 0)) / (now - then)

  def text(self, now: float) -> str:
    elapsed = _clock(now - self._started)
    if self._stats is None:
      return f'{elapsed} | waiting for the learner'
    stats = self._stats
    frames = stats.get('frames', 0)
    parts = [elapsed, f'{_si(frames)}/{_si(self._total)} frames '
                      f'({100 * frames / self._total:.0f}%)']
    rates = [self._rate('frames', window) for window in _WINDOWS]
    parts.append(' '.join(f'{"-" if rate is None else _si(rate)}'
                          f'{" fps" if i == 0 else ""} ({window:g} s)'
                          for i, (rate, window) in enumerate(zip(rates, _WINDOWS))))
    if stats.get('episode_return') is None and stats.get('eval_episode_return') is None:
      parts.append('no episode finished yet')
    else:
      parts.append(f'return {_return(stats.get("episode_return"))} '
                   f'eval {_return(stats.get("eval_episode_return"))}')
    tasks = [f'{key[len("episode_return/"):]} {_return(value)}'
             for key, value in stats.items() if key.startswith('episode_return/')]
    if tasks:  # A learner of several tasks (examples/many_tasks.py).
      parts.append('tasks: ' + ', '.join(tasks))
    parts.append(f'{stats.get("learner_steps", 0):,} steps')
    rows, batches = (self._rate(k, _WINDOWS[0]) for k in ('inference_rows',
                                                           'inference_batches'))
    if rows is not None and batches:
      parts.append(f'batch {rows / batches:.1f}/{self._batch_size}')
    if stats.get('unroll_queue_size') is not None:
      parts.append(f'queue {stats["unroll_queue_size"]}')
    if stats.get('replay_size') is not None:
      parts.append(f'replay {stats["replay_size"]:,} sequences')
    restarts = [f'{key[len("restarts_"):]} {value}' for key, value in sorted(stats.items())
                if key.startswith('restarts_') and value]
    if restarts:
      parts.append('restarts ' + ', '.join(restarts))
    waiting = [f'{key[len("waiting_"):]} {value}' for key, value in sorted(stats.items())
               if key.startswith('waiting_') and value]
    if waiting:
      parts.append('waiting ' + ', '.join(waiting))
    return ' | '.join(parts)


def others_summary(statuses: Sequence[RunStatus], shown: int = 8) -> str:
  """What the line adds for learners after the first (`learner/1`, `learner/2`, ...: a
  population's members in order): each one's recent return, named."""
  if not statuses:
    return ''
  returns = [f'learner/{index} {_return((s.stats or {}).get("episode_return"))}'
             for index, s in enumerate(statuses[:shown], 1)]
  more = ' ...' if len(statuses) > shown else ''
  return f' | returns of {", ".join(returns)}{more}'


class StatusReporter:
  """Polls `get_stats` at `address` every second and shows the line on `console`
  (every second on a terminal, every `plain_seconds` elsewhere). `others`: (address,
  RunStatus) of further learners (a population), polled too, their returns summed up at
  the end of the line."""

  def __init__(self, address: str, status: RunStatus, console: console_lib.Console,
               plain_seconds: float = 10.0,
               others: Sequence[Tuple[str, RunStatus]] = ()):
    self._learners = [(address, status)] + list(others)
    self._status = status
    self._console = console
    self._every = 1.0 if console.interactive else plain_seconds
    self._stop = threading.Event()
    self._thread = threading.Thread(target=self._run, name='status', daemon=True)
    self._update_shown = None  # `last_update` of the status last shown.

  def start(self):
    self._thread.start()

  def stop(self):
    """Stops polling; shows the last status once more if it changed since shown."""
    self._stop.set()
    self._thread.join(5)
    if self._status.last_update != self._update_shown:
      self._console.status(self._text(time.monotonic()))
    self._console.end_status()

  def _text(self, now: float) -> str:
    return self._status.text(now) + others_summary([s for _, s in self._learners[1:]])

  def _run(self):
    clients = [None] * len(self._learners)
    last_shown = 0.0
    while not self._stop.wait(1.0):
      for i, (address, run_status) in enumerate(self._learners):
        clients[i] = clients[i] or _connect(address)
        stats = None
        if clients[i] is not None:
          try:
            stats = clients[i].get_stats(transport.callers_secret())
          except Exception:  # pylint: disable=broad-except
            # Not up, restarting or busy: the line says what it knew. The client goes:
            # gRPC's reconnect back-off, which every channel to the address shares,
            # would refuse calls for up to ~16 s after the learner is back (measured),
            # long enough for an actor host to take a learner that came up late for gone.
            clients[i] = None
        if stats:
          run_status.update(time.monotonic(), stats)
      now = time.monotonic()
      if now - last_shown >= self._every - 0.01:
        last_shown, self._update_shown = now, self._status.last_update
        self._console.status(self._text(now))


def _connect(address: str):
  """A client once the learner's port accepts connections, else None."""
  import courier  # pylint: disable=g-import-not-at-top
  host, port = address.rsplit(':', 1)
  try:
    socket.create_connection((host.strip('[]'), int(port)), timeout=1.0).close()
  except OSError:
    return None
  return courier.Client(address, call_timeout=2, wait_for_ready=False)
