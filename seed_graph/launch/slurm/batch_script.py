"""The batch script `launch.cluster up --backend=slurm` writes into the logdir and submits.

One allocation of `1 + --actor_hosts` nodes, one task each. The batch script runs on the
first node, which becomes the learner's host (the learner, its replay and evaluators);
the others are the actor hosts.

`--no-kill`: a node that fails leaves the allocation (its actors are lost) and training
goes on. This is why it is one allocation and not a heterogeneous job (a learner
component and an actor component, which could ask for GPUs and a partition of the
learner's alone): Slurm 22.05 cancels a whole heterogeneous job when a node of any
component fails, `--no-kill` or not (measured on the test cluster of
tests/slurm_cluster.py). So `--learner_gpus=K` asks K GPUs of every node (`--gres`), and
the job lives in one partition.

`--signal=B:TERM@120` (`--stop_warning_seconds`): two minutes before `--time` runs out
(as the site has it: an administrator may shorten it), the batch step gets SIGTERM and
stops the hosts in order; the learner saves, and `up` again with the same logdir
resumes. Slurm may send it up to a minute early (sbatch(1), `--signal`).
"""

import dataclasses
import shlex
from typing import List, Sequence


@dataclasses.dataclass(frozen=True)
class SlurmOptions:
  """What `up --backend=slurm` asks Slurm for (the flags of `launch.cluster`)."""
  actor_hosts: int = 2
  cpus_per_host: int = 8
  learner_gpus: int = 0  # Asked of every node: see the module docstring.
  partition: str = ''
  account: str = ''
  qos: str = ''
  time: str = ''  # Slurm's forms: MINUTES, HH:MM:SS, D-HH:MM...
  job_name: str = 'seed_graph'
  extra_lines: Sequence[str] = ()  # Each becomes `#SBATCH <line>`.
  stop_warning_seconds: int = 120


def sbatch_options(options: SlurmOptions, logdir: str) -> List[str]:
  """Every `#SBATCH` option of the script, in order."""
  chosen = [f'--job-name={options.job_name}', f'--output={logdir}/hosts/slurm-%j.out',
            f'--nodes={1 + options.actor_hosts}', '--ntasks-per-node=1',
            f'--cpus-per-task={options.cpus_per_host}', '--no-kill',
            f'--signal=B:TERM@{options.stop_warning_seconds}']
  for flag, value in (('partition', options.partition), ('account', options.account),
                      ('qos', options.qos), ('time', options.time)):
    if value:
      chosen.append(f'--{flag}={value}')
  if options.learner_gpus:
    chosen.append(f'--gres=gpu:{options.learner_gpus}')
  return chosen + list(options.extra_lines)


def batch_script(options: SlurmOptions, logdir: str, checkout: str,
                 job_command: Sequence[str]) -> str:
  """The script's text: `job_command` (`python -m seed_graph.launch.slurm.job ...`) runs
  in `checkout` on the learner's node; the job's own output goes to
  `<logdir>/hosts/slurm-<job id>.out`."""
  lines = ['#!/bin/bash',
           '# Written by `python -m seed_graph.launch.cluster up --backend=slurm`; '
           'submitted with sbatch.',
           '# The first node is the learner\'s host, the others are actor hosts.']
  lines += [f'#SBATCH {option}' for option in sbatch_options(options, logdir)]
  lines += [f'cd {shlex.quote(checkout)}',
            # exec: the batch step's SIGTERM (scancel --batch, the time limit) reaches
            # the job's coordinator itself.
            'exec ' + shlex.join(job_command), '']
  return '\n'.join(lines)
