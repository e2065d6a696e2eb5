"""The supervisor's restart and stop policy, with small stand-in node processes (no
Launchpad): which exits restart a node, when the program gives up, the stop order."""

import dataclasses
import json
import os
import re
import signal
import sys
import threading
import time

import psutil

from seed_graph.launch.supervision import node_commands
from seed_graph.launch.supervision import supervisor
from seed_graph.nodes.learner import planned_restart
from seed_graph.lifecycle import restarts

# A stand-in node: records its start, runs until SIGTERM (then records the time and
# exits 0), or exits with `exit_code` after `seconds` when given.
_NODE = '''
import signal, sys, time
name, record, seconds, code = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
def on_term(*_):
  time.sleep(0.2)
  with open(record, 'a') as f:
    f.write(name + ' ' + repr(time.time()) + chr(10))
  sys.exit(0)
signal.signal(signal.SIGTERM, on_term)
with open(record + '.starts', 'a') as f:
  f.write(name + chr(10))
if seconds < 0:
  while True:
    time.sleep(0.05)
time.sleep(seconds)
sys.exit(code)
'''

FAST = supervisor.RestartPolicy(max_restarts=2, max_quick_exits=4, healthy_seconds=60,
                                first_backoff_seconds=0.05, max_backoff_seconds=0.2,
                                max_acting_backoff_seconds=0.4)


# The roles the program's node types declare (see node_commands.ROLES).
_ROLES = {'actor': 'acting', 'evaluator': 'acting', 'learner': 'learner',
          'replay': 'store'}


def _command(tmp_path, name, seconds=-1.0, exit_code=0, role=None):
  group = name.split('/')[0]
  return node_commands.NodeCommand(
      name, group,
      (sys.executable, '-c', _NODE, name, str(tmp_path / 'stops'), str(seconds),
       str(exit_code)), {}, role or _ROLES.get(group, 'other'))


def _run(tmp_path, commands, policy=FAST, stop_after=None, grace=20, host=None,
         stop_at_starts=None):
  """Supervises `commands`; SIGTERM after `stop_after` seconds, or once the nodes have
  started `stop_at_starts` times in all (within 120 s)."""
  log_dir = tmp_path / 'logs'
  os.makedirs(log_dir, exist_ok=True)
  if stop_after is not None:
    threading.Timer(stop_after, os.kill, (os.getpid(), signal.SIGTERM)).start()
  if stop_at_starts is not None:
    threading.Thread(target=_stop_at_starts, args=(tmp_path, stop_at_starts),
                     daemon=True).start()
  return supervisor.Supervisor(commands, str(log_dir), str(tmp_path), grace, policy,
                               host=host).run()


def _starts(tmp_path) -> int:
  try:
    with open(tmp_path / 'stops.starts') as f:
      return len(f.readlines())
  except FileNotFoundError:
    return 0


def _stop_at_starts(tmp_path, starts: int, limit_seconds: float = 120.0):
  deadline = time.time() + limit_seconds
  while _starts(tmp_path) < starts and time.time() < deadline:
    time.sleep(0.05)
  os.kill(os.getpid(), signal.SIGTERM)


def _stop_order(tmp_path):
  with open(tmp_path / 'stops') as f:
    rows = [line.split() for line in f]
  return [name for name, _ in sorted(rows, key=lambda row: float(row[1]))]


def test_sigterm_stops_acting_nodes_then_the_learner_then_the_rest(tmp_path):
  commands = [_command(tmp_path, n) for n in
              ('replay/0', 'learner/0', 'actor/0', 'actor/1', 'evaluator/0')]
  # A program's own groups, their roles declared by their node types.
  commands += [_command(tmp_path, 'players/0', role='acting'),
               _command(tmp_path, 'league/0', role='learner')]
  assert _run(tmp_path, commands, stop_after=2.0) == 0
  order = _stop_order(tmp_path)
  assert sorted(order[:4]) == ['actor/0', 'actor/1', 'evaluator/0', 'players/0']
  assert sorted(order[4:6]) == ['league/0', 'learner/0'] and order[6:] == ['replay/0']
  assert not os.path.exists(tmp_path / restarts.FILE_NAME)  # Nothing was restarted.


def test_a_crashing_actor_is_restarted_and_counted(tmp_path):
  commands = [_command(tmp_path, 'learner/0'), _command(tmp_path, 'actor/0', 0.5, 3)]
  # Three exits in 2.5 s (below max_quick_exits=4): restarted each time, no failure.
  assert _run(tmp_path, commands, stop_after=2.5) == 0
  with open(tmp_path / restarts.FILE_NAME) as f:
    assert 2 <= json.load(f)['actor'] <= 3
  assert restarts.read(str(tmp_path))['restarts_actor'] >= 2


def test_each_host_counts_in_its_own_file_and_the_learner_sees_the_sum(tmp_path):
  # Two hosts' agents share a logdir (a bucket, or namespaces of one machine).
  for host in ('cpu0', 'cpu1'):
    commands = [_command(tmp_path, 'actor/0', 0.5, 3)]
    assert _run(tmp_path, commands, stop_after=1.6, host=host) == 0
  per_host = [restarts.read_counts(restarts.path(str(tmp_path), h))['actor']
              for h in ('cpu0', 'cpu1')]
  assert all(n >= 1 for n in per_host)
  assert not os.path.exists(tmp_path / restarts.FILE_NAME)
  assert restarts.read(str(tmp_path)) == {'restarts_actor': sum(per_host)}


def test_a_launcher_started_again_counts_on_from_its_file(tmp_path):
  restarts.write(str(tmp_path), {'actor': 5, 'learner': 1})
  commands = [_command(tmp_path, 'learner/0'), _command(tmp_path, 'actor/0', 0.5, 3)]
  assert _run(tmp_path, commands, stop_after=1.6) == 0
  counts = restarts.read(str(tmp_path))
  assert counts['restarts_actor'] >= 6 and counts['restarts_learner'] == 1


def test_a_crash_loop_of_the_learner_stops_the_program_with_exit_code_1(tmp_path, capsys):
  many_restarts = dataclasses.replace(FAST, max_restarts=100)
  commands = [_command(tmp_path, 'learner/0', 0.0, 3), _command(tmp_path, 'actor/0')]
  start = time.time()
  assert _run(tmp_path, commands, policy=many_restarts) == 1
  assert time.time() - start < 15
  output = capsys.readouterr().out
  assert 'FAILED: learner/0 exited (exit code 3), 4 times in a row' in output
  assert 'learner_0.log' in output
  assert 'actor/0' in _stop_order(tmp_path)  # The rest of the program was stopped.


def test_a_failing_actor_backs_off_and_never_stops_the_program(tmp_path, capsys):
  """More quick exits than `max_quick_exits`: the actor is restarted each time, later and
  later, while the healthy one goes on; the restarts and the waiting actor are counted
  for the learner's metrics and the status line."""
  commands = [_command(tmp_path, 'learner/0'), _command(tmp_path, 'actor/0'),
              _command(tmp_path, 'actor/1', 0.0, 3)]
  seen_waiting = []

  def watch():
    while not seen_waiting:
      if restarts.read(str(tmp_path)).get('waiting_actor'):
        seen_waiting.append(True)
      time.sleep(0.01)

  threading.Thread(target=watch, daemon=True).start()
  assert _run(tmp_path, commands, stop_after=5.0) == 0
  output = capsys.readouterr().out
  delays = [float(d) for d in re.findall(r'actor/1 exited \(exit code 3\); restarting it in '
                                         r'([0-9.]+) s', output)]
  assert len(delays) > FAST.max_quick_exits
  assert delays[-1] > delays[0] and max(delays) <= FAST.max_acting_backoff_seconds
  assert 'FAILED' not in output
  assert sorted(_stop_order(tmp_path)) == ['actor/0', 'learner/0']
  assert restarts.read(str(tmp_path))['restarts_actor'] == len(delays)
  assert seen_waiting


def test_an_actor_killed_from_outside_is_said_so_and_restarted_at_once(tmp_path, capsys):
  commands = [_command(tmp_path, 'learner/0'), _command(tmp_path, 'actor/0')]

  def kill_the_actor(times):
    for _ in range(times):
      deadline = time.time() + 5
      while time.time() < deadline:
        actors = [p for p in psutil.Process().children()
                  if 'actor/0' in ' '.join(p.cmdline())]
        if actors:
          actors[0].kill()
          break
        time.sleep(0.02)
      time.sleep(0.3)

  threading.Timer(0.5, kill_the_actor, (6,)).start()
  assert _run(tmp_path, commands, stop_after=5.0) == 0
  output = capsys.readouterr().out
  kills = re.findall(r'actor/0 exited \(killed by SIGKILL, from outside\); restarting it in '
                     r'([0-9.]+) s', output)
  assert len(kills) >= 5  # More than max_quick_exits, all within seconds of a start.
  assert set(kills) == {f'{FAST.first_backoff_seconds:g}'}
  assert 'FAILED' not in output


def test_the_program_stops_when_no_acting_node_stays_up(tmp_path, capsys):
  policy = dataclasses.replace(FAST, healthy_seconds=0.5, acting_idle_seconds=1.5)
  commands = [_command(tmp_path, 'learner/0'), _command(tmp_path, 'actor/0', 0.1, 3)]
  start = time.time()
  assert _run(tmp_path, commands, policy=policy) == 1
  assert 2.0 <= time.time() - start < 15
  output = capsys.readouterr().out
  assert 'FAILED: no actor or evaluator of this launcher has stayed up 0.5 s' in output
  assert 'learner/0' in _stop_order(tmp_path)


def test_a_learner_that_keeps_crashing_stops_after_max_restarts(tmp_path, capsys):
  slow_crash = supervisor.RestartPolicy(max_restarts=2, max_quick_exits=10,
                                        first_backoff_seconds=0.05)
  commands = [_command(tmp_path, 'learner/0', 0.3, 1), _command(tmp_path, 'actor/0')]
  assert _run(tmp_path, commands, policy=slow_crash) == 1
  assert 'FAILED: learner/0 exited (exit code 1) after 2 restarts' in capsys.readouterr().out
  assert restarts.read(str(tmp_path)) == {'restarts_learner': 2}


def test_a_learner_that_finishes_stops_the_program_cleanly(tmp_path):
  commands = [_command(tmp_path, 'learner/0', 0.5, 0), _command(tmp_path, 'actor/0')]
  assert _run(tmp_path, commands) == 0
  assert _stop_order(tmp_path) == ['actor/0']


def test_a_planned_learner_restart_is_immediate_and_not_counted(tmp_path, capsys):
  # A learner that exits with the planned-restart code, again and again (each time it
  # "saved"), more often than max_restarts and max_quick_exits would allow a crash.
  code = planned_restart.PLANNED_RESTART_EXIT_CODE
  # Stopped once the learner has started 7 times and the actor once (not after a fixed
  # time: a slow machine starts Python processes slowly).
  commands = [_command(tmp_path, 'learner/0', 0.1, code), _command(tmp_path, 'actor/0')]
  assert _run(tmp_path, commands, stop_at_starts=8) == 0
  output = capsys.readouterr().out
  assert output.count('learner/0 restarts as planned') >= 6  # At once, each time.
  assert 'FAILED' not in output
  assert restarts.read(str(tmp_path)) == {}


def test_nodes_that_ignore_sigterm_are_killed_after_the_grace_period(tmp_path):
  pid_file = tmp_path / 'pid'
  stubborn = node_commands.NodeCommand(
      'actor/0', 'actor', (sys.executable, '-c',
                           'import os, signal, sys, time\n'
                           'signal.signal(signal.SIGTERM, signal.SIG_IGN)\n'
                           'open(sys.argv[1], "w").write(str(os.getpid()))\n'
                           'time.sleep(600)', str(pid_file)), {}, 'acting')
  start = time.time()
  assert _run(tmp_path, [stubborn], stop_after=1.0, grace=2) == 0
  assert time.time() - start < 10
  assert not psutil.pid_exists(int(pid_file.read_text()))


def test_the_programs_node_types_declare_their_roles(tmp_path):
  from seed_graph.configs import cartpole_r2d2  # pylint: disable=g-import-not-at-top
  from seed_graph.programs import central_inference  # pylint: disable=g-import-not-at-top
  config = cartpole_r2d2.get_config()
  config.logdir = str(tmp_path)
  commands = node_commands.program_commands(central_inference.make_program(config))
  assert {c.group: c.role for c in commands} == {
      'replay': 'store', 'learner': 'learner', 'actor': 'acting', 'evaluator': 'acting'}


def test_a_learner_that_fails_as_it_starts_stops_the_program_at_once(tmp_path, capsys):
  # An exception in its construction: it would fail the same way every time.
  failing = node_commands.NodeCommand(
      'learner/0', 'learner',
      (sys.executable, '-c', 'import time; time.sleep(0.3); raise TypeError("bad argument")'),
      {}, 'learner')
  start = time.time()
  assert _run(tmp_path, [failing, _command(tmp_path, 'actor/0')]) == 1
  assert time.time() - start < 10
  output = capsys.readouterr().out
  assert ('FAILED: learner/0 failed as it started, before it was up: TypeError: bad '
          'argument (not restarted') in output
  assert 'restarting it' not in output
  assert restarts.read(str(tmp_path)) == {}
