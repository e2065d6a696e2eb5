r"""Runs a seed_graph program on this machine.

  python -m launch.local --config=configs/cartpole_vtrace.py --logdir=/tmp/run \
      [--config.actors.num=4 ...] [--launch_type=local_mp|local_mt]

Ctrl-C, or the learner reaching `total_environment_frames`, stops every node. Running
again with the same --logdir resumes from its last checkpoint.
"""

import os

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '2')

from absl import app  # pylint: disable=g-import-not-at-top
from absl import flags
import launchpad as lp
from ml_collections import config_flags

from launch import programs

_CONFIG = config_flags.DEFINE_config_file('config', None, 'Experiment config file.',
                                          lock_config=False)
_LOGDIR = flags.DEFINE_string('logdir', None, 'Directory for metrics, summaries and '
                              'checkpoints; an existing one is resumed.')
_LAUNCH_TYPE = flags.DEFINE_enum('launch_type', 'local_mp', ['local_mp', 'local_mt'],
                                 'One process per node (local_mp) or threads (local_mt).')
_TERMINAL = flags.DEFINE_enum(
    'terminal', 'current_terminal', ['current_terminal', 'output_to_files'],
    'Where node output goes (Launchpad 0.5.2 needs a choice without X).')
flags.mark_flags_as_required(['config', 'logdir'])


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f'unexpected arguments: {argv[1:]}')
  config = _CONFIG.value
  config.logdir = os.path.abspath(_LOGDIR.value)
  program = programs.make_program(config)  # Validates the config before anything starts.
  os.makedirs(config.logdir, exist_ok=True)
  print(f'launching {program.name}: {sum(len(n) for n in program.groups.values())} nodes, '
        f'logdir {config.logdir}', flush=True)
  if _LAUNCH_TYPE.value == 'local_mp':
    manager = lp.launch(program, launch_type='local_mp', terminal=_TERMINAL.value)
  else:
    manager = lp.launch(program, launch_type='local_mt')
  manager.wait()


if __name__ == '__main__':
  app.run(main)
