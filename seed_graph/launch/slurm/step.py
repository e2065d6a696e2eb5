r"""One host's job step of a Slurm run: runs the host's agent and ends with its exit code.

  srun ... python -m seed_graph.launch.slurm.step python -m seed_graph.launch.host ...

An actor host's agent that stopped because the learner was gone
(`orphan.ORPHANED_EXIT_CODE`) may have lost the learner's node. With `--no-kill` Slurm
takes a failed node out of a job and keeps the rest of it running, also when that node
is the batch host: the learner and the job's coordinator are gone, but the actor hosts'
nodes would stay allocated until the time limit. So this then waits for Slurm's
verdict: once the batch host has left the job, it cancels the job; if the job ends
otherwise, or this step is signalled, it ends.

Ctrl-C and SIGTERM (Slurm signals every process of a step) are the agent's to handle
while it runs; this process only waits for it.
"""

import os
import re
import signal
import subprocess
import sys
import time
from typing import Optional, Sequence, Tuple

from seed_graph.launch import orphan

POLL_SECONDS = 5.0


def _scontrol(*argv: str) -> str:
  return subprocess.run(['scontrol', *argv], capture_output=True, text=True,
                        check=False).stdout


def job_state(job: str) -> Tuple[bool, Optional[str]]:
  """(whether the job still runs, its batch host if that is no longer one of its nodes)."""
  shown = _scontrol('show', 'job', '--oneliner', job)
  if not re.search(r'\bJobState=(RUNNING|SUSPENDED)\b', shown):
    return False, None
  batch_host = re.search(r'\bBatchHost=(\S+)', shown)
  node_list = re.search(r'\bNodeList=(\S+)', shown)
  if not batch_host or not node_list:
    return True, None
  nodes = _scontrol('show', 'hostnames', node_list.group(1)).split()
  return True, None if batch_host.group(1) in nodes else batch_host.group(1)


def main(argv: Sequence[str], job: str) -> int:
  signalled = {'yes': False}
  for signum in (signal.SIGINT, signal.SIGTERM):
    # A handler, not SIG_IGN: the agent would inherit an ignored signal.
    signal.signal(signum, lambda *_: signalled.update(yes=True))
  code = subprocess.call(list(argv))
  if code != orphan.ORPHANED_EXIT_CODE:
    return code
  signalled['yes'] = False  # What the agent was asked before it ended is the agent's.
  while not signalled['yes']:
    running, lost = job_state(job)
    if not running:
      break
    if lost:
      print(f'[slurm] the learner\'s node {lost} has left job {job}: cancelling the job',
            flush=True)
      subprocess.run(['scancel', job], check=False)
      break
    time.sleep(POLL_SECONDS)
  return code


if __name__ == '__main__':
  sys.exit(main(sys.argv[1:], os.environ['SLURM_JOB_ID']))
