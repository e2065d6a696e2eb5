"""Runs a program's node processes on this machine, restarts the ones that crash, and
stops them in order.

While the program runs:
What happens to a node follows its role, declared by its type (`node_commands.ROLES`).

- An actor or evaluator (an acting node) that exits is restarted, always: after 1 s,
  doubling for each exit in a row that came within `healthy_seconds` of its start, up to
  `max_acting_backoff_seconds` (minutes). Its environments draw new run ids, so the
  learner starts them afresh. One failing actor never stops the program; only when no
  acting node of this launcher has stayed up `healthy_seconds` for `acting_idle_seconds`
  does the program stop (exit code 1), since nothing is generating experience.
- The learner and the replay node (every node that is not acting) are restarted the
  same way, at most `max_restarts` times each, with back-offs up to
  `max_backoff_seconds`; the learner resumes from its newest checkpoint, the replay from
  its own. One more crash stops the program (exit code 1), and so do
  `max_quick_exits` exits in a row within `healthy_seconds` of starting (a crash loop:
  a bug, not a fault), naming the node and its log.
- A learner that exits with `planned_restart.PLANNED_RESTART_EXIT_CODE` has saved and asks
  to be started again (its memory grew: `seed_graph.nodes.learner.planned_restart`): it is,
  at once, and not counted.
- A node killed by a signal from outside (SIGKILL, SIGTERM, SIGINT, SIGHUP: an operator,
  the OOM killer, a preemption) is reported as such, and an acting node killed so is
  restarted after the first back-off, not counted as a quick exit.
- Restarts are counted per group in `<logdir>/restarts.json`, with the acting nodes now
  waiting for their restart (see `seed_graph.lifecycle.restarts`; the learner's metrics and the
  status line show both), and printed as they happen.

The program stops when the learner exits cleanly (it reached `total_environment_frames`
and called `lp.stop()`, which sends this process SIGTERM), on SIGTERM, or on Ctrl-C.
Nodes stop in order: actors and evaluators, then the learner (its final checkpoint
includes the replay, which is still up), then everything else. The steps share
`grace_seconds`; whatever is left after that is killed. A second Ctrl-C kills at once.
"""

import collections
import dataclasses
import os
import signal
import time
from typing import Callable, Dict, List, Optional, Sequence

from seed_graph.launch.supervision import console as console_lib
from seed_graph.launch.supervision import node_commands
from seed_graph.launch.supervision import node_process
from seed_graph.nodes.learner import planned_restart
from seed_graph.lifecycle import restarts



# Exits by these signals come from outside the node: an operator, the OOM killer, a
# preemption; not a bug of the node's own.
OUTSIDE_SIGNALS = (signal.SIGKILL, signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


@dataclasses.dataclass(frozen=True)
class RestartPolicy:
  max_restarts: int = 3  # Per non-acting node (learner, replay); acting nodes: unlimited.
  max_quick_exits: int = 5  # Non-acting nodes: in a row, each within `healthy_seconds`.
  healthy_seconds: float = 60.0
  first_backoff_seconds: float = 1.0
  max_backoff_seconds: float = 30.0  # Non-acting nodes.
  max_acting_backoff_seconds: float = 300.0
  acting_idle_seconds: float = 900.0  # No acting node healthy this long: stop.

  def backoff(self, quick_exits: int, acting: bool) -> float:
    limit = self.max_acting_backoff_seconds if acting else self.max_backoff_seconds
    return min(self.first_backoff_seconds * 2 ** max(quick_exits - 1, 0), limit)


@dataclasses.dataclass
class _NodeState:
  restarts: int = 0
  quick_exits: int = 0
  restart_at: Optional[float] = None


class Supervisor:
  """`Supervisor(commands, log_dir, logdir, grace_seconds).run()` -> exit code."""

  def __init__(self, commands: Sequence[node_commands.NodeCommand], log_dir: str,
               logdir: str, grace_seconds: float,
               policy: RestartPolicy = RestartPolicy(),
               console: Optional[console_lib.Console] = None,
               stop_condition: Optional[Callable[[], Optional[str]]] = None,
               host: Optional[str] = None):
    """`stop_condition()`, if given, is asked every 0.2 s for a reason to stop the
    program (None: go on); a multi-host agent stops when its learner is done or gone.
    `host` names the multi-host agent's restart-count file (`seed_graph.lifecycle.restarts`)."""
    self._stop_condition = stop_condition
    self._console = console or console_lib.Console()
    self._nodes = [node_process.NodeProcess(c, log_dir, self._console) for c in commands]
    self._states: Dict[str, _NodeState] = {n.name: _NodeState() for n in self._nodes}
    self._last_exit_at = 0.0  # When a node last exited and was restarted.
    self._logdir = logdir
    self._host = host
    # A launcher started again on the same logdir counts on from its file.
    self._earlier_restarts = restarts.read_counts(restarts.path(logdir, host))
    self._grace = grace_seconds
    self._policy = policy
    self._stop_reason: Optional[str] = None
    self._failure: Optional[str] = None
    self._kill_now = False
    self._acting = [n for n in self._nodes if n.command.role == 'acting']
    self._acting_healthy_at = time.time()  # Last seen with an acting node up and healthy.

  def run(self) -> int:
    previous = {signal.SIGINT: signal.signal(signal.SIGINT, self._on_interrupt),
                signal.SIGTERM: signal.signal(signal.SIGTERM, self._on_terminate)}
    try:
      for node in self._nodes:
        node.start()
      while self._stop_reason is None:
        self._check_nodes()
        self._check_acting()
        if self._stop_condition and self._stop_reason is None:
          reason = self._stop_condition()
          if reason:
            self._request_stop(reason)
        time.sleep(0.2)
      self._say(f'stopping: {self._stop_reason}')
      if any(state.restart_at is not None for state in self._states.values()):
        for state in self._states.values():
          state.restart_at = None  # Nobody waits for a restart any more.
        self._write_restarts()
      self._stop_in_order()
    finally:
      for node in self._nodes:
        node.kill()
      for node in self._nodes:
        node.finish_output()
      for signum, handler in previous.items():
        signal.signal(signum, handler)
    if self._failure:
      self._say(f'FAILED: {self._failure}')
      return 1
    return 0

  def _on_interrupt(self, *_):
    if self._stop_reason is not None:
      self._say('second Ctrl-C: killing every node now')
      self._kill_now = True
    else:
      self._request_stop(f'Ctrl-C (again to kill at once; nodes get {self._grace:g} s)')

  def _on_terminate(self, *_):
    self._request_stop('SIGTERM (stop requested)')

  def _request_stop(self, reason: str, failure: Optional[str] = None):
    if self._stop_reason is None:
      self._stop_reason = reason
      self._failure = failure

  def _check_nodes(self):
    now = time.time()
    for node in self._nodes:
      state = self._states[node.name]
      if state.restart_at is not None:
        if now >= state.restart_at:
          state.restart_at = None
          node.start()
          self._write_restarts()
        continue
      code = node.exit_code()
      if code is not None:
        self._on_exit(node, state, code)
        if self._stop_reason is not None:
          return

  def _check_acting(self):
    """Stops the program once no acting node has been up and healthy for a while."""
    if not self._acting or self._stop_reason is not None:
      return
    now = time.time()
    if any(n.running() and n.uptime() >= self._policy.healthy_seconds
           for n in self._acting):
      self._acting_healthy_at = now
    idle = now - self._acting_healthy_at - self._policy.healthy_seconds
    if idle > self._policy.acting_idle_seconds:
      self._request_stop('no acting node', failure=(
          f'no actor or evaluator of this launcher has stayed up '
          f'{self._policy.healthy_seconds:g} s in {idle:.0f} s; see their logs in '
          f'{os.path.dirname(self._acting[0].log_path)}'))

  def _on_exit(self, node: node_process.NodeProcess, state: _NodeState, code: int):
    if node.command.role == 'learner' and code == 0:
      self._request_stop('the learner finished')
      return
    if node.command.role == 'learner' and code == planned_restart.PLANNED_RESTART_EXIT_CODE:
      # It saved and asked to be started again (seed_graph.nodes.learner.planned_restart):
      # not a crash.
      state.restart_at = time.time()
      self._say(f'{node.name} restarts as planned (its memory grew); it resumes from the '
                'checkpoint it has just written')
      return
    acting = node.command.role == 'acting'
    if not acting and code == 1 and self._failed_as_it_started(node, state):
      return
    self._last_exit_at = time.time()
    from_outside = code < 0 and -code in OUTSIDE_SIGNALS
    if acting and from_outside:
      state.quick_exits = 0  # Not the node's fault: restart it soon.
    else:
      state.quick_exits = state.quick_exits + 1 if (
          node.uptime() < self._policy.healthy_seconds) else 0
    what = f'{node.name} exited ({_describe(code)})'
    if not acting and state.quick_exits >= self._policy.max_quick_exits:
      self._request_stop('crash loop', failure=(
          f'{what}, {state.quick_exits} times in a row within '
          f'{self._policy.healthy_seconds:g} s of starting; see {node.log_path}'))
      return
    if not acting and state.restarts >= self._policy.max_restarts:
      self._request_stop('restarts exhausted', failure=(
          f'{what} after {state.restarts} restarts (--max_restarts='
          f'{self._policy.max_restarts}); see {node.log_path}'))
      return
    delay = self._policy.backoff(state.quick_exits, acting)
    state.restarts += 1
    state.restart_at = time.time() + delay
    self._write_restarts()
    self._say(f'{what}; restarting it in {delay:g} s (restart {state.restarts} of this node)')

  def _failed_as_it_started(self, node: node_process.NodeProcess, state: _NodeState) -> bool:
    """A learner or replay whose first run ends in a Python exception (exit code 1, a
    traceback) before it was ever up (its construction, its config, an import), with no
    other node gone down meanwhile, would fail the same way again: the program stops at
    once, saying why, instead of retrying."""
    if state.restarts or node.uptime() >= self._policy.healthy_seconds:
      return False
    if self._last_exit_at > time.time() - node.uptime():
      return False  # Another node went down meanwhile (a killed replay): a consequence.
    error = node.uncaught_exception()
    if error is None:
      return False
    self._request_stop('a node failed as it started', failure=(
        f'{node.name} failed as it started, before it was up: {error} (not restarted: '
        f'it would fail the same way); see {node.log_path}'))
    return True

  def _write_restarts(self):
    counts = collections.Counter(self._earlier_restarts)
    waiting = collections.Counter()
    for node in self._nodes:
      state = self._states[node.name]
      counts[node.command.group] += state.restarts
      waiting[node.command.group] += state.restart_at is not None
    restarts.write(self._logdir, {g: n for g, n in counts.items() if n}, self._host,
                   waiting={g: n for g, n in waiting.items() if n})

  def _stop_in_order(self):
    deadline = time.time() + self._grace
    for step in self._stop_steps():
      for node in step:
        node.terminate()
      while (any(node.running() for node in step) and time.time() < deadline
             and not self._kill_now):
        time.sleep(0.1)
    left = [node.name for node in self._nodes if node.running()]
    if left:
      self._say(f'killing nodes that did not stop within {self._grace:g} s: {left}')

  def _say(self, message: str):
    self._console.line(f'[launcher] {message}')

  def _stop_steps(self) -> List[List[node_process.NodeProcess]]:
    acting = [n for n in self._nodes if n.command.role == 'acting']
    learner = [n for n in self._nodes if n.command.role == 'learner']
    rest = [n for n in self._nodes if n not in acting and n not in learner]
    return [acting, learner, rest]


def _describe(code: int) -> str:
  if code < 0:
    try:
      name = signal.Signals(-code).name
    except ValueError:
      return f'killed by signal {-code}'
    return f'killed by {name}' + (', from outside' if -code in OUTSIDE_SIGNALS else '')
  return f'exit code {code}'

