"""`launch.cluster up|status|logs|stop|down --backend=slurm --logdir=DIR`, run on a login
node: the run is its logdir, which every node sees (a shared filesystem: your home or
scratch), and its job id is kept in `<logdir>/hosts/slurm_job`.

  up      checks the config, writes `<logdir>/hosts/slurm_job.sh` (`batch_script`) and
          submits it with sbatch (`--dry_run`: prints the script and the command only).
          The same logdir again resumes from its newest checkpoint.
  status  the job in squeue (or sacct, once it has left the queue) and the learner's
          last metrics.
  logs    the end of the job's output (the learner host's agent) and of each actor
          host's log.
  stop    an ordered stop: SIGTERM to the job's coordinator, which stops the actor
          hosts first, then the learner host (which saves); the job then ends.
  down    scancel: ends the job at once (no final checkpoint).
"""

import glob
import os
import shlex
import subprocess
import sys
from typing import List, Optional, Sequence

from seed_graph.launch import placement
from seed_graph.launch.runs import end_of_run
from seed_graph.launch.slurm import batch_script
from seed_graph.nodes.learner import metrics as metrics_lib


def _job_file(logdir: str) -> str:
  return os.path.join(logdir, 'hosts', 'slurm_job')


def job_id(logdir: str) -> Optional[str]:
  try:
    with open(_job_file(logdir)) as f:
      return f.read().strip() or None
  except OSError:
    return None


def _queued(job: str) -> bool:
  result = subprocess.run(['squeue', '--noheader', f'--jobs={job}', '--format=%i'],
                          capture_output=True, text=True, check=False)
  return result.returncode == 0 and bool(result.stdout.strip())


def _error(message: str) -> int:
  print(f'error: {message}', file=sys.stderr, flush=True)
  return 2


def job_command(config: str, overrides: Sequence[str], logdir: str, base_port: int,
                program: str, orphan_timeout_seconds: float = 300.0) -> List[str]:
  """What the batch script executes on the learner's node."""
  command = [sys.executable, '-m', 'seed_graph.launch.slurm.job', f'--config={config}',
             f'--logdir={logdir}', f'--base_port={base_port}',
             f'--orphan_timeout_seconds={orphan_timeout_seconds:g}',
             *[f'--config.{override}' for override in overrides]]
  return command + ([f'--program={program}'] if program else [])


def up(options: batch_script.SlurmOptions, config: str, overrides: Sequence[str],
       logdir: str, base_port: int, program: str = '', dry_run: bool = False,
       orphan_timeout_seconds: float = 300.0) -> int:
  logdir = os.path.abspath(logdir)
  previous = job_id(logdir)
  if previous and _queued(previous):
    return _error(f'job {previous} of {logdir} is still queued or running: `stop` or '
                  '`down` it first')
  try:  # A bad config fails here, before anything is queued.
    placement.load_program(config, overrides, logdir, program)
  except placement.PlanError as error:
    return _error(str(error))
  os.makedirs(os.path.join(logdir, 'hosts'), exist_ok=True)
  script = os.path.join(logdir, 'hosts', 'slurm_job.sh')
  with open(script, 'w') as f:
    f.write(batch_script.batch_script(
        options, logdir, os.getcwd(),
        job_command(config, overrides, logdir, base_port, program,
                    orphan_timeout_seconds)))
  submit = ['sbatch', '--parsable', script]
  if dry_run:
    with open(script) as f:
      print(f.read(), flush=True)
    print(f'# would run: {shlex.join(submit)}', flush=True)
    return 0
  result = subprocess.run(submit, capture_output=True, text=True, check=False)
  if result.returncode:
    return _error(f'sbatch refused {script}: {result.stderr.strip()}')
  job = result.stdout.strip().split(';')[0]  # "ID" or "ID;CLUSTER".
  with open(_job_file(logdir), 'w') as f:
    f.write(job + '\n')
  resuming = end_of_run.resuming(logdir)
  print(f'submitted job {job}{" (" + resuming + ")" if resuming else ""}; follow it '
        f'with: python -m seed_graph.launch.cluster status --backend=slurm '
        f'--logdir={shlex.quote(logdir)}', flush=True)
  return 0


def _known_job(logdir: str) -> Optional[str]:
  job = job_id(os.path.abspath(logdir))
  if job is None:
    _error(f'{logdir} holds no Slurm job (no hosts/slurm_job): was it started with '
           '`up --backend=slurm`?')
  return job


def status(logdir: str) -> int:
  job = _known_job(logdir)
  if job is None:
    return 2
  if _queued(job):
    command = ['squeue', f'--jobs={job}', '--format=%.12i %.9P %.20j %.8T %.10M %.6D %R']
  else:
    command = ['sacct', f'--jobs={job}', '--format=JobID,JobName,State,Elapsed,NodeList',
               '--allocations']
  result = subprocess.run(command, capture_output=True, text=True, check=False)
  print(result.stdout.rstrip() or f'job {job}: not in squeue, and sacct knows nothing '
        f'({result.stderr.strip() or "no accounting storage?"})', flush=True)
  last = metrics_lib.last_record(os.path.abspath(logdir))
  if last:
    print(f'learner: {int(last["frames"]):,} frames, return '
          f'{last.get("episode_return")}, eval {last.get("eval_episode_return")}',
          flush=True)
  return 0


def logs(logdir: str, lines: int = 40) -> int:
  job = _known_job(logdir)
  if job is None:
    return 2
  hosts = os.path.join(os.path.abspath(logdir), 'hosts')
  for path in [os.path.join(hosts, f'slurm-{job}.out')] + sorted(
      glob.glob(os.path.join(hosts, '*.log'))):
    if os.path.exists(path):
      with open(path, errors='replace') as f:
        tail = f.read().splitlines()[-lines:]
      print(f'==> {path} <==\n' + '\n'.join(tail), flush=True)
  return 0


def stop(logdir: str) -> int:
  job = _known_job(logdir)
  if job is None:
    return 2
  result = subprocess.run(['scancel', '--batch', '--signal=TERM', job],
                          capture_output=True, text=True, check=False)
  if result.returncode:
    return _error(f'scancel could not signal job {job}: {result.stderr.strip()}')
  print(f'job {job}: asked to stop (actor hosts first, then the learner host, which '
        'saves); it leaves the queue when done', flush=True)
  return 0


def down(logdir: str) -> int:
  job = _known_job(logdir)
  if job is None:
    return 2
  return subprocess.run(['scancel', job], check=False).returncode
