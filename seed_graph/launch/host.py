r"""One host's share of a multi-host program: the per-host agent.

  SEED_GRAPH_RUN_SECRET=... python -m seed_graph.launch.host --plan=plan.json --host=cpu0

Rebuilds the program from the plan's config file and overrides (in this host's
checkout), refuses to run if the program's fingerprint differs from the plan's (other
code or another config than the plan was made with), binds every node's address to its
host and port from the plan, and runs this host's nodes under the same supervisor as
`launch.local` (restarts with back-off, ordered stops, logs in `<logdir>/logs/`).

Every host of a run needs the same `SEED_GRAPH_RUN_SECRET` (the launcher that starts
the agents makes one): the inference edge serves only streams that carry it.

An agent without the learner stops by itself when the learner reports
`total_environment_frames` reached, or after the learner has not answered for
`--orphan_timeout_seconds` (its host is gone; `launch.orphan`), and then exits with
`orphan.ORPHANED_EXIT_CODE` (3); the learner's own host stops as `launch.local` does.
Ctrl-C or SIGTERM stops this host's nodes only.
"""

import os
import sys
from typing import Sequence

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '2')

from absl import app  # pylint: disable=g-import-not-at-top
from absl import flags

from seed_graph.launch.supervision import console as console_lib
from seed_graph.launch.supervision import node_commands
from seed_graph.launch.supervision import node_runner
from seed_graph.launch.supervision import supervisor
from seed_graph.launch import orphan
from seed_graph.launch import placement
from seed_graph.launch.runs import config_args
from seed_graph.launch.runs import logdir_lock
from seed_graph.launch.runs import program_args
from seed_graph.launch.runs import tensorflow_environment
from seed_graph.config.schema import ConfigError
from seed_graph.inference import transport
from seed_graph.nodes import replay_socket

_PLAN = flags.DEFINE_string('plan', None, 'The plan file (launch.placement).')
_HOST = flags.DEFINE_string('host', None, 'This host\'s name in the plan.')
_MAX_RESTARTS = flags.DEFINE_integer('max_restarts', 3, 'As launch.local\'s.', lower_bound=0)
_ACTING_IDLE = flags.DEFINE_integer('acting_idle_seconds', 900, 'As launch.local\'s.',
                                    lower_bound=1)
_STOP_GRACE = flags.DEFINE_integer('stop_grace_seconds', 120, 'As launch.local\'s.',
                                   lower_bound=1)
_ORPHAN_TIMEOUT = flags.DEFINE_float(
    'orphan_timeout_seconds', 300.0, 'A host without the learner stops once the learner '
    'has not answered for this long (it keeps retrying until then: a restarting learner '
    'comes back on the same address).', lower_bound=1.0)
_CONSOLE = flags.DEFINE_enum('console', 'status', ['status', 'all'], 'As launch.local\'s.')
flags.mark_flags_as_required(['plan', 'host'])


def _fail(message: str):
  print(f'error: {message}', file=sys.stderr, flush=True)
  sys.exit(2)


def checked_program(plan: placement.Plan):
  """The program, rebuilt here; a one-line error if it is not the plan's."""
  config, program = placement.load_program(plan.config_path, plan.overrides, plan.logdir,
                                           plan.program)
  fingerprint = placement.fingerprint(program, config, plan.ports, plan.program)
  if fingerprint != plan.fingerprint:
    raise placement.PlanError(
        f'this host builds another program than the plan ({fingerprint} != '
        f'{plan.fingerprint}): its code or {plan.config_path} differs from the planning '
        'host\'s, or the plan was edited; make the plan again with the same checkout')
  return config, program


def _binding(plan: placement.Plan, program, mine):
  """`placement.bind` for this host: a node only its own host uses (the replay) on a Unix
  socket, from a network namespace of its own, where this host can start one; else on
  its plan port, said as a warning."""
  cannot = replay_socket.namespaces_unavailable()
  host_only = [name for name, node in placement.node_names(program)
               if name in mine and getattr(node, 'HOST_ONLY', False)]
  if host_only and cannot:
    print(f'host {_HOST.value}: warning: {", ".join(host_only)} will listen on every '
          'interface (its plan port) and Reverb checks no secret: this host cannot start '
          f'a network namespace of its own ({cannot})', flush=True)
  return lambda p: placement.bind(p, plan, host_only_sockets=not cannot)


def main(argv: Sequence[str]):
  if len(argv) > 1:
    raise app.UsageError(f'unexpected arguments: {argv[1:]}')
  if not transport.run_secret():
    _fail(f'{transport.RUN_SECRET_VARIABLE} is not set: every host of a run needs the '
          'same secret')
  try:
    plan = placement.Plan.load(_PLAN.value)
    mine = set(plan.nodes_of(_HOST.value))
    config, program = checked_program(plan)
  except (OSError, ValueError) as error:  # PlanError, ConfigError, a missing file.
    _fail(str(error))
  commands = [c for c in node_commands.program_commands(
      program, node_commands.stop_grace_resources(program, _STOP_GRACE.value),
      _binding(plan, program, mine)) if c.name in mine]
  print(f'host {_HOST.value}: {", ".join(sorted(mine))} (plan {plan.fingerprint})',
        flush=True)
  lock = logdir_lock.LogdirLock(config.logdir, _HOST.value)  # Held until the end.
  try:
    config_args.make_logdir(config.logdir)
    took_over = lock.acquire()
  except ConfigError as error:
    _fail(str(error))
  if took_over:
    print(took_over, flush=True)
  learner_here = any(name.startswith('learner/') for name in mine)
  tensorflow_environment.set_for_nodes(config.onednn)
  flags.FLAGS.lp_termination_notice_secs = _STOP_GRACE.value
  condition = None if learner_here else orphan.OrphanCondition(
      config.total_environment_frames, _ORPHAN_TIMEOUT.value)
  code = node_runner.run_nodes(
      commands, config, [l.control_address() for l in program_args.learners(program)],
      _STOP_GRACE.value,
      supervisor.RestartPolicy(max_restarts=_MAX_RESTARTS.value,
                               acting_idle_seconds=_ACTING_IDLE.value),
      console_lib.Console(show_all=_CONSOLE.value == 'all'), condition, host=_HOST.value)
  sys.exit(orphan.ORPHANED_EXIT_CODE if code == 0 and condition and condition.learner_gone
           else code)


if __name__ == '__main__':
  app.run(main)
