r"""The same program on Cloud TPU VMs and Compute Engine VMs, with gcloud.

  python -m seed_graph.launch.cluster up --config=atari_vtrace --logdir=gs://B/pong \
      --project=P --zone=europe-west4-a --run_id=pong1 [--actor_hosts=2 \
      --actor_machine_type=n2-standard-8 --learner_accelerator=v3-8 --spot] [--dry_run]
  python -m seed_graph.launch.cluster status|logs|stop|down --project=P --zone=Z --run_id=R
  python -m seed_graph.launch.cluster up --backend=netns --hosts=3 --config=... --logdir=...  (root)

`up` makes what the run needs, each step one gcloud (or local) command: a code bundle
(`git archive`), a firewall rule that admits only the run's own instances (network tag
`sg-<run_id>`) on the plan's ports, the learner TPU VM, the actor VMs; it reads their
internal addresses, writes the placement plan (`launch.placement`) and a fresh run
secret, copies bundle, plan and secret to every host, sets each host up
(`seed_graph/launch/cloud/setup_host.sh`), starts each host's agent (`launch.host`), and
follows the learner's status line. `--restart_host=NAME` only starts that host's agent
again (after a preemption, say). `stop` sends Ctrl-C to every agent (actor hosts first); `down`
deletes the VMs and the firewall rule. `--dry_run` prints the placement plan (with the
addresses still to be read) and then every command, shell-quoted and in order, and runs
nothing.

`--backend=slurm` runs it as one Slurm job from a login node, the logdir
on a filesystem every node sees (`seed_graph.launch.slurm`; docs/multi_host.md):

  python -m seed_graph.launch.cluster up --backend=slurm --config=atari_vtrace \
      --logdir=$HOME/runs/pong --actor_hosts=4 [--partition=P --cpus_per_host=16 \
      --learner_gpus=1 --account=A --qos=Q --time=1-00:00:00 --sbatch_line=...] [--dry_run]
  python -m seed_graph.launch.cluster status|logs|stop|down --backend=slurm --logdir=...

`--backend=ssh` runs it on machines you reach with OpenSSH, in the foreground until the
program ends or Ctrl-C (`seed_graph.launch.ssh.ssh_cluster`):

  python -m seed_graph.launch.cluster up --backend=ssh --ssh_hosts=gpu1,box2,box3 \
      --config=atari_vtrace --logdir=runs/pong [--remote_dir=/path/to/checkout]

`--backend=netns --hosts=N` runs the same plan and agents on N network-namespace hosts of
this machine instead, in the foreground until the program ends or Ctrl-C
(`seed_graph.launch.network.netns_cluster`); this is how the multi-host launcher is tested.
"""

import os
import shlex
import sys
from typing import List, NoReturn, Sequence

# Loading a config imports TensorFlow, whose CUDA probing would print a screenful on
# every command; this launcher needs no TensorFlow device.
os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '2')

from absl import app  # pylint: disable=g-import-not-at-top
from absl import flags

from seed_graph.launch.cloud import cluster_steps
from seed_graph.launch.runs import config_args

_CONFIG = flags.DEFINE_string('config', None, 'Experiment config (up): a preset\'s name or '
                              'a .py file; `--config.KEY=VALUE` arguments override its keys.')
_LOGDIR = flags.DEFINE_string(
    'logdir', None, 'The run\'s logdir on the learner host (up); a relative path is under '
    '~/seed_graph there. Its disk must outlive the VM for a resume after `down` (a '
    'persistent disk); a gs:// path is written through tf.io.gfile, untried on a real '
    'bucket. slurm: an absolute path every node sees; the run\'s name for status, logs, '
    'stop and down.')
_PROJECT = flags.DEFINE_string('project', None, 'Google Cloud project.')
_ZONE = flags.DEFINE_string('zone', None, 'Zone of every host, e.g. europe-west4-a.')
_RUN_ID = flags.DEFINE_string('run_id', None, 'Names the run\'s VMs, tag and rule.')
_ACTOR_HOSTS = flags.DEFINE_integer('actor_hosts', 2, 'Actor VMs.', lower_bound=1)
_ACTOR_MACHINE = flags.DEFINE_string('actor_machine_type', 'n2-standard-8',
                                     'Machine type of the actor VMs.')
_ACCELERATOR = flags.DEFINE_string('learner_accelerator', 'v3-8', 'TPU type of the learner '
                                   'host (TensorFlow 2.8 runs on v2 and v3).')
_TPU_VERSION = flags.DEFINE_string('tpu_version', 'tpu-vm-tf-2.8.4', 'TPU VM runtime.')
_SPOT = flags.DEFINE_bool('spot', False, 'Spot VMs and TPU (cheaper, preemptible).')
_BASE_PORT = flags.DEFINE_integer('base_port', 20000, 'The plan\'s first port.')
_RESTART_HOST = flags.DEFINE_string('restart_host', None, 'up: only start this host\'s '
                                    'agent again.')
_DRY_RUN = flags.DEFINE_bool('dry_run', False, 'Print the plan and commands (slurm: the '
                             'batch script); run nothing.')
_BACKEND = flags.DEFINE_enum('backend', 'gcloud', ['gcloud', 'slurm', 'ssh', 'netns'],
                             'Where the hosts are: Google Cloud VMs, the nodes of a Slurm '
                             'job, machines reached over SSH, or network namespaces of this '
                             'machine (root).')
_SSH_HOSTS = flags.DEFINE_string('ssh_hosts', '', 'ssh: the learner\'s host, then the '
                                 'actor hosts, comma-separated, each NAME (as ssh reaches '
                                 'it) or NAME=ADDRESS (as the other hosts reach it).')
_SSH_CONFIG = flags.DEFINE_string('ssh_config', '', 'ssh: a config file for ssh -F '
                                  '(default: your ~/.ssh/config).')
_REMOTE_DIR = flags.DEFINE_string('remote_dir', '', 'ssh: the checkout (with its .venv) on '
                                  'every host (default: this checkout\'s path).')
_PARTITION = flags.DEFINE_string('partition', '', 'slurm: the job\'s partition.')
_LEARNER_GPUS = flags.DEFINE_integer('learner_gpus', 0, 'slurm: GPUs for the learner '
                                     '(--gres=gpu:K; one allocation asks them of every '
                                     'node: docs/multi_host.md).', lower_bound=0)
_HOST_CPUS = flags.DEFINE_integer('cpus_per_host', 8, 'slurm: CPUs of each host (the '
                                  'actor hosts\' run their actors\' environments).',
                                  lower_bound=1)
_ACCOUNT = flags.DEFINE_string('account', '', 'slurm: --account.')
_QOS = flags.DEFINE_string('qos', '', 'slurm: --qos.')
_TIME = flags.DEFINE_string('time', '', 'slurm: the time limit (--time); '
                            '--stop_warning_seconds before it the hosts stop in order and '
                            'the learner saves.')
_STOP_WARNING = flags.DEFINE_integer('stop_warning_seconds', 120, 'slurm: how long before '
                                     'the time limit the job is told to stop '
                                     '(--signal=B:TERM@N): long enough for a final '
                                     'checkpoint (an R2D2 replay\'s included).',
                                     lower_bound=1)
_ORPHAN_TIMEOUT = flags.DEFINE_float('orphan_timeout_seconds', 300.0, 'slurm: an actor '
                                     'host stops once the learner has not answered for '
                                     'this long; if the learner\'s node has left the job, '
                                     'the first to stop cancels the job.', lower_bound=1)
_SBATCH_LINES = flags.DEFINE_multi_string('sbatch_line', [], 'slurm: an extra line of the '
                                          'whole job, as after `#SBATCH `.')
_HOSTS = flags.DEFINE_integer('hosts', 3, 'netns: hosts (one learner host, the rest actor '
                              'hosts).', lower_bound=2)
_PROGRAM = flags.DEFINE_string('program', '', 'up: module:function building the program, '
                               'found from the directory launched in (default: the '
                               'config\'s built-in program); every host rebuilds it.')
_OVERRIDES = []  # The `--config.KEY=VALUE` arguments, taken out before absl sees them.

COMMANDS = ('up', 'status', 'logs', 'stop', 'down')


def _parse_flags(argv: Sequence[str]):
  return flags.FLAGS(config_args.take_overrides(argv, _OVERRIDES))


def _cluster() -> cluster_steps.Cluster:
  missing = [name for name, flag in (('project', _PROJECT), ('zone', _ZONE),
                                     ('run_id', _RUN_ID)) if not flag.value]
  if missing:
    _usage('missing --' + ', --'.join(missing))
  return cluster_steps.Cluster(
      project=_PROJECT.value, zone=_ZONE.value, run_id=_RUN_ID.value,
      actor_hosts=_ACTOR_HOSTS.value, actor_machine_type=_ACTOR_MACHINE.value,
      learner_accelerator=_ACCELERATOR.value, tpu_version=_TPU_VERSION.value,
      spot=_SPOT.value, base_port=_BASE_PORT.value)


def _usage(message: str) -> NoReturn:
  """A usage error: one line and exit code 2, as the other launchers' bad input."""
  print(f'error: {message}', file=sys.stderr, flush=True)
  sys.exit(2)


def _steps(command: str, cluster: cluster_steps.Cluster) -> List[cluster_steps.Step]:
  if command == 'up':
    if not _CONFIG.value or not _LOGDIR.value:
      _usage('up needs --config and --logdir')
    if _RESTART_HOST.value:
      return cluster_steps.start_agent_steps(cluster, [_RESTART_HOST.value])
    return cluster_steps.up_steps(cluster, _CONFIG.value, _OVERRIDES, _LOGDIR.value,
                                  _PROGRAM.value)
  return getattr(cluster_steps, f'{command}_steps')(cluster)


def _netns_up(argv: Sequence[str]) -> int:
  if argv[1] != 'up' or _DRY_RUN.value or _RESTART_HOST.value:
    _usage('--backend=netns runs `up` in the foreground (Ctrl-C stops it); '
                         'status, logs, stop, down, --dry_run and --restart_host are for gcloud')
  if not _CONFIG.value or not _LOGDIR.value:
    _usage('up needs --config and --logdir')
  if os.geteuid() != 0:
    _usage('--backend=netns needs root (ip netns)')
  # Here, not at the top: it builds the program (TensorFlow), which gcloud commands need not.
  from seed_graph.launch.network import netns_cluster  # pylint: disable=g-import-not-at-top
  return netns_cluster.up(_CONFIG.value, _OVERRIDES, _LOGDIR.value, _HOSTS.value,
                          _BASE_PORT.value, program_spec=_PROGRAM.value)


def _ssh_up(command: str) -> int:
  if command != 'up' or _DRY_RUN.value or _RESTART_HOST.value:
    _usage('--backend=ssh runs `up` in the foreground (Ctrl-C stops it)')
  if not _CONFIG.value or not _LOGDIR.value:
    _usage('up needs --config and --logdir')
  # Here, not at the top: it builds the program (TensorFlow), which gcloud needs not.
  from seed_graph.launch import placement  # pylint: disable=g-import-not-at-top
  from seed_graph.launch.ssh import ssh_cluster  # pylint: disable=g-import-not-at-top
  ssh = ['ssh'] + (['-F', _SSH_CONFIG.value] if _SSH_CONFIG.value else [])
  try:
    return ssh_cluster.up(
        ssh_cluster.parse_hosts(_SSH_HOSTS.value), _CONFIG.value, _OVERRIDES, _LOGDIR.value,
        _BASE_PORT.value, ssh, _REMOTE_DIR.value, _PROGRAM.value)
  except placement.PlanError as error:
    _usage(str(error))


def _slurm(command: str) -> int:
  if not _LOGDIR.value:
    _usage('--backend=slurm needs --logdir (the run is its logdir)')
  # Here, not at the top: `up` checks the config (TensorFlow), gcloud commands need not.
  from seed_graph.launch.slurm import batch_script  # pylint: disable=g-import-not-at-top
  from seed_graph.launch.slurm import commands  # pylint: disable=g-import-not-at-top
  if command != 'up':
    return getattr(commands, command)(_LOGDIR.value)
  if not _CONFIG.value or _RESTART_HOST.value:
    _usage('up needs --config (and takes no --restart_host: Slurm restarts nothing)')
  options = batch_script.SlurmOptions(
      actor_hosts=_ACTOR_HOSTS.value, cpus_per_host=_HOST_CPUS.value,
      learner_gpus=_LEARNER_GPUS.value, partition=_PARTITION.value, account=_ACCOUNT.value,
      qos=_QOS.value, time=_TIME.value, extra_lines=tuple(_SBATCH_LINES.value),
      stop_warning_seconds=_STOP_WARNING.value)
  return commands.up(options, _CONFIG.value, _OVERRIDES, _LOGDIR.value, _BASE_PORT.value,
                     _PROGRAM.value, _DRY_RUN.value, _ORPHAN_TIMEOUT.value)


def main(argv: Sequence[str]):
  if len(argv) != 2 or argv[1] not in COMMANDS:
    _usage(f'one command: {" | ".join(COMMANDS)}')
  if _BACKEND.value == 'netns':
    return _netns_up(argv)
  if _BACKEND.value == 'slurm':
    return _slurm(argv[1])
  if _BACKEND.value == 'ssh':
    return _ssh_up(argv[1])
  cluster = _cluster()
  steps = _steps(argv[1], cluster)
  if _DRY_RUN.value:
    if argv[1] == 'up' and not _RESTART_HOST.value:
      print(cluster_steps.describe_plan(cluster, _CONFIG.value, _OVERRIDES, _LOGDIR.value,
                                        _PROGRAM.value))
    for number, step in enumerate(steps, 1):
      print(f'# {number}. {step.what}\n{shlex.join(step.argv)}')
    return 0
  return cluster_steps.run(steps)


if __name__ == '__main__':
  sys.exit(app.run(main, flags_parser=_parse_flags))
