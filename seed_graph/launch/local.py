r"""Runs a seed_graph program on this machine.

  python -m seed_graph.launch.local --config=cartpole_vtrace --logdir=/tmp/run \
      [--config.actors.num=4 ...] [--launch_type=local_mp|local_mt] \
      [--program=my_module:make_program]

Ctrl-C, SIGTERM, or the learner reaching `total_environment_frames`, stops every node.
Running again with the same --logdir resumes from its last checkpoint. Nodes get
--stop_grace_seconds to finish (a learner finishes its step and saves); a second Ctrl-C
kills at once.

Under local_mp (the default) each node is a process that
`seed_graph.launch.supervision.supervisor` restarts
when it crashes (see there for the policy); node output goes to the console and to
`<logdir>/logs/`. Under local_mt the nodes are threads of this process, unsupervised.

Either way the program runs in a network namespace of its own with only loopback
(`--network=loopback`, the default; see `seed_graph.launch.network.loopback_network`), and its
inference edge
serves only streams that carry the run's secret, generated here.
"""

import os
import secrets
import sys
from typing import Optional, Sequence

from seed_graph.launch.network import loopback_network

# Before the imports below (TensorFlow's among them, seconds): a launch that will run its
# program in a network namespace re-executes itself there now, so that it imports and
# builds the program once, inside, rather than once on each side. If it cannot enter,
# main() tries again after its checks and warns.
if __name__ == '__main__' and loopback_network.launch_enters(sys.argv[1:]):
  loopback_network.enter(loopback_network.own_command('seed_graph.launch.local'))

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '2')

from absl import app  # pylint: disable=g-import-not-at-top
from absl import flags
import launchpad as lp
import ml_collections

from seed_graph.config import record as config_record
from seed_graph.config import schema as config_schema
from seed_graph.launch.runs import config_args
from seed_graph.launch.runs import end_of_run
from seed_graph.launch.runs import logdir_lock
from seed_graph.launch.runs import program_args
from seed_graph.launch.runs import tensorflow_environment
from seed_graph.launch.supervision import console as console_lib
from seed_graph.launch.supervision import node_commands
from seed_graph.launch.supervision import node_runner
from seed_graph.launch.supervision import supervisor
from seed_graph.launch import program_graph
from seed_graph.algos import precision
from seed_graph.nodes.learner import metrics as metrics_lib
from seed_graph.inference import transport
from seed_graph.programs import registry

_CONFIG = flags.DEFINE_string(
    'config', None, 'Experiment config: a preset\'s name (cartpole_vtrace, ...) or a .py '
    'file with a get_config() returning a ConfigDict; '
    '--config.KEY=VALUE overrides a key; --print_config lists them all.')
_PROGRAM = flags.DEFINE_string(
    'program', None, "Your own experiment, 'module:function': the function takes the "
    'config and returns a launchpad Program (the module is imported from this directory). '
    "Default: the built-in program of the config's algorithm.")
_LOGDIR = flags.DEFINE_string('logdir', None, 'Directory for metrics, summaries and '
                              'checkpoints; an existing one is resumed.')
_LAUNCH_TYPE = flags.DEFINE_enum('launch_type', 'local_mp', ['local_mp', 'local_mt'],
                                 'One process per node (local_mp) or threads (local_mt).')
_MAX_RESTARTS = flags.DEFINE_integer(
    'max_restarts', 3, 'local_mp: how often the learner (and the replay node) may be '
    'restarted after a crash before the program stops; actors are always restarted.',
    lower_bound=0)
_ACTING_IDLE = flags.DEFINE_integer(
    'acting_idle_seconds', 900, 'local_mp: the program stops once no actor or evaluator '
    'has stayed up a minute for this long (each failing one backs off, to 5 minutes).',
    lower_bound=1)
_STOP_GRACE = flags.DEFINE_integer(
    'stop_grace_seconds', 120,
    'After Ctrl-C, how long nodes may take to stop before they are killed. Launchpad\'s '
    'own 10 s is shorter than one Atari R2D2 learner step on a small machine.',
    lower_bound=1)
_PRINT_CONFIG = flags.DEFINE_bool(
    'print_config', False, 'List every key of the config with its value (overrides '
    'applied, after its checks) and the comment that documents it in the config file, '
    'and exit without launching. Every launch also writes the config to '
    '<logdir>/config.json.')
_CONSOLE = flags.DEFINE_enum(
    'console', 'status', ['status', 'all'],
    'local_mp: status shows a status line, the launcher\'s messages and the nodes\' '
    'warnings, errors and tracebacks (each node\'s whole output is in '
    '<logdir>/logs/); all also shows every line of every node.')
_NETWORK = flags.DEFINE_enum(
    'network', 'loopback', ['loopback', 'host'],
    'loopback: the program runs in a network namespace of its own whose only interface '
    'is loopback, so no port of it can be reached from outside (see '
    'seed_graph/launch/network/loopback_network.py). host: its ports listen on every '
    'interface of this machine (for an environment that needs the network).')
flags.mark_flags_as_required(['config'])  # And --logdir, but for --print_config.

def run_supervised(program: lp.Program, config: ml_collections.ConfigDict) -> int:
  """Starts every node as a process of its own and supervises them, under a status
  line; the exit code."""
  commands = node_commands.program_commands(
      program, node_commands.stop_grace_resources(program, _STOP_GRACE.value))
  return node_runner.run_nodes(
      commands, config, [l.control_address() for l in program_args.learners(program)],
      _STOP_GRACE.value,
      supervisor.RestartPolicy(max_restarts=_MAX_RESTARTS.value,
                               acting_idle_seconds=_ACTING_IDLE.value),
      console_lib.Console(show_all=_CONSOLE.value == 'all'))


_OVERRIDES = []  # The KEY=VALUE of every --config.KEY=VALUE, in order.


def parse_flags(argv: Sequence[str]):
  """absl's flag parsing of everything but `--config.KEY=VALUE` (kept in _OVERRIDES)."""
  try:
    return flags.FLAGS(config_args.take_overrides(argv, _OVERRIDES))
  except flags.Error as flag_error:  # A value of the wrong type, a flag we lack, ...
    _fail(str(flag_error))


def _fail(message: str):
  print(f'error: {message}', file=sys.stderr, flush=True)
  sys.exit(2)


def _enter_loopback_network():
  """Re-executes this launcher in a network namespace of its own (once), or warns."""
  if loopback_network.inside():
    loopback_network.bring_up_loopback()
    return
  reason = loopback_network.enter(loopback_network.own_command('seed_graph.launch.local'))
  print(f'warning: no network of its own for this program ({reason}): its ports listen '
        'on every interface of this machine, and only the inference edge checks the '
        'run\'s secret. --network=host says that is intended.', file=sys.stderr,
        flush=True)


def _config_and_program():
  """(config, program, the program's own config keys), checked before anything starts;
  a bad one exits with one line."""
  try:
    program_keys = program_args.config_keys(_PROGRAM.value)
    config = config_args.load(_CONFIG.value, _OVERRIDES, program_keys)
    # --print_config alone may go without a logdir: it writes nothing.
    config.logdir = os.path.abspath(_LOGDIR.value) if _LOGDIR.value else '(no --logdir)'
    return config, program_args.build(config, _PROGRAM.value), program_keys
  except config_schema.ConfigError as error:
    _fail(str(error))


def _print_if(line: Optional[str]) -> None:
  if line:
    print(line, flush=True)


def main(argv: Sequence[str]):
  if len(argv) > 1:
    raise app.UsageError(f'unexpected arguments: {argv[1:]}')
  if not _LOGDIR.value and not _PRINT_CONFIG.value:
    _fail('--logdir: required: the directory the run writes to (the same one again '
          'resumes it); only --print_config goes without one')
  config, program, program_keys = _config_and_program()
  shape_changes, other_changes = config_args.changes_since_last_launch(config,
                                                                       program_keys)
  if shape_changes:
    _fail(f'{shape_changes[0]}: this logdir\'s checkpoint was made with the old value; '
          'use a new --logdir (changed: ' + '; '.join(shape_changes) + ')')
  if _PRINT_CONFIG.value:
    for change in other_changes:
      print(f'resuming with a changed config: {change}', flush=True)
    print(config_schema.describe(config, registry.schema(config, program_keys)))
    _print_if(precision.describe(config.network, config.onednn))
    return
  try:  # This machine runs the learner: one it cannot compute in fails before launch.
    precision.check_supported(config.network, config.onednn,
                              config.learner.training_strategy == 'mirrored')
    config_args.make_logdir(config.logdir)
  except ValueError as error:  # config_schema.ConfigError among them.
    _fail(str(error))
  if _NETWORK.value == 'loopback':
    _enter_loopback_network()  # Runs this again, inside; only the second run goes on.
  lock = logdir_lock.LogdirLock(config.logdir)  # Held until this process ends.
  try:
    took_over = lock.acquire()
  except config_schema.ConfigError as error:
    _fail(str(error))
  if took_over:
    print(took_over, flush=True)
  for change in other_changes:
    print(f'resuming with a changed config: {change}', flush=True)
  last = metrics_lib.last_record(config.logdir)
  if last and last.get('frames', 0) >= config.total_environment_frames:
    # Nothing to do: say so instead of starting every node only to stop them.
    print(f'{config.logdir} is complete: frames={last["frames"]} >= '
          f'total_environment_frames={config.total_environment_frames}. Raise '
          'total_environment_frames to train on.', flush=True)
    return
  config_record.record(config)
  picture = program_graph.write(program, os.path.join(config.logdir, 'program'))[-1]
  print(f'launching {program.name}: {sum(len(n) for n in program.groups.values())} nodes, '
        f'logdir {config.logdir} (the program: {picture})', flush=True)
  print(f'config: {_CONFIG.value}'
        + (f' with {", ".join(_OVERRIDES)}' if _OVERRIDES else '')
        + f'; every key in {config.logdir}/config.json (--print_config documents them)',
        flush=True)
  if config.network.torso != 'mlp':
    _print_if(precision.describe(config.network, config.onednn))
  _print_if(end_of_run.resuming(config.logdir))
  flags.FLAGS.lp_termination_notice_secs = _STOP_GRACE.value  # This process's manager.
  tensorflow_environment.set_for_nodes(config.onednn)
  # The inference edge serves only streams that carry this (nodes inherit it); a
  # launcher that starts nodes elsewhere passes its own.
  os.environ.setdefault(transport.RUN_SECRET_VARIABLE, secrets.token_urlsafe(24))
  sys.exit(_run(program, config))


def _run(program: lp.Program, config: ml_collections.ConfigDict) -> int:
  """Runs the program to its end; says how it ended and what to run next."""
  code = 0
  if _LAUNCH_TYPE.value == 'local_mp':
    code = run_supervised(program, config)
  else:
    lp.launch(program, launch_type='local_mt').wait()
  print(end_of_run.summary(config.logdir, config.total_environment_frames), flush=True)
  return code


if __name__ == '__main__':
  app.run(main, flags_parser=parse_flags)
