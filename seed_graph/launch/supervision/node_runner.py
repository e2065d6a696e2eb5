"""Runs node commands on this machine under a supervisor and a status line: what
`launch.local` does with a whole program and `launch.host` with one host's share."""

import os
import time
from typing import Callable, Optional, Sequence
import ml_collections

from seed_graph.launch.supervision import console as console_lib
from seed_graph.launch.supervision import node_commands
from seed_graph.launch.supervision import status
from seed_graph.launch.supervision import supervisor
from seed_graph.lifecycle import launcher_watch


def run_nodes(commands: Sequence[node_commands.NodeCommand],
              config: ml_collections.ConfigDict, learner_addresses: Sequence[str],
              grace_seconds: float, policy: supervisor.RestartPolicy,
              console: console_lib.Console,
              stop_condition: Optional[Callable[[Sequence[status.RunStatus]],
                                                Optional[str]]] = None,
              host: Optional[str] = None) -> int:
  """Starts `commands` (each a process), supervises them, shows the learners' status
  (polled at `learner_addresses`, the first in full) until the program stops; the exit
  code.
  `stop_condition(statuses)` (one per learner) may stop it early with a reason; `host` is the
  multi-host agent's host name (None under `launch.local`)."""
  # Nodes inherit this and stop if this process dies without stopping them.
  os.environ[launcher_watch.LAUNCHER_PID_VARIABLE] = str(os.getpid())
  # Node processes run Launchpad's entry script, so the directory we were started in is
  # not on their import path: put it there, for modules named by import string in the
  # config (a custom `env.factory`), as `python -m` put it on ours.
  os.environ['PYTHONPATH'] = os.pathsep.join(
      [os.getcwd()] + [p for p in os.environ.get('PYTHONPATH', '').split(os.pathsep) if p])
  # Each node's output is a local file; a logdir in a bucket keeps them on this host.
  log_dir = (os.path.join(config.logdir, 'logs') if '://' not in config.logdir
             else os.path.join('logs', config.logdir.rstrip('/').rsplit('/', 1)[-1]))
  os.makedirs(log_dir, exist_ok=True)
  console.line(f'node output: {log_dir}/<group>_<index>.log')
  statuses = [status.RunStatus(config.total_environment_frames,
                               config.inference.batch_size, started=time.monotonic())
              for _ in learner_addresses]
  reporter = status.StatusReporter(learner_addresses[0], statuses[0], console,
                                   others=list(zip(learner_addresses[1:], statuses[1:])))
  condition = (lambda: stop_condition(statuses)) if stop_condition else None
  reporter.start()
  try:
    return supervisor.Supervisor(
        commands, log_dir, config.logdir, grace_seconds,
        policy, console, condition,
        host).run()
  finally:
    reporter.stop()
