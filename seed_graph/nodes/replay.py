"""The replay node: a Launchpad `ReverbNode` whose checkpoints are never the reason it
cannot start, and which stops by itself when its launcher dies
(`seed_graph.lifecycle.launcher_watch`).

`ReplayNode(make_tables, checkpoint_dir)`: `make_tables()` is called in the node's
process; the replay is checkpointed into `checkpoint_dir` (None: not at all). Its handle
dereferences, in other nodes, to a `reverb.Client` (Launchpad's own handle).

At start Reverb loads the newest complete checkpoint (it keeps only that one). One it
cannot read (zeros or garbage where a write was cut short) is reported by name and moved
aside, into `<checkpoint_dir>.damaged/` (Reverb would find it anywhere inside the
directory), and any complete one before it is tried, until one loads or none is left:
then the replay starts empty, and says so (docs/supervision.md, "Checkpoints").

At a `unix:<path>` address it serves from a network namespace of its own, through that
socket alone (`seed_graph.nodes.replay_socket`).
"""

import os
from typing import Callable, List, Optional

from absl import logging
import launchpad as lp
from launchpad import address as lp_address
from launchpad.launch import worker_manager
import reverb

from seed_graph.lifecycle import launcher_watch
from seed_graph.nodes import launchpad_private as private
from seed_graph.nodes import replay_socket

DAMAGED_SUFFIX = '.damaged'  # Of the folder damaged checkpoints are moved into.


def replay_checkpoint_dir(logdir: str) -> str:
  """Where a program's replay keeps its checkpoints: beside the model's, in the run's
  logdir, so a restart with the same logdir restores both."""
  return os.path.join(logdir, 'replay')


def _checkpoints(checkpoint_dir: str) -> List[str]:
  """Complete checkpoints (Reverb writes DONE last), oldest first."""
  if not os.path.isdir(checkpoint_dir):
    return []
  names = sorted(os.listdir(checkpoint_dir))
  return [os.path.join(checkpoint_dir, n) for n in names
          if os.path.isfile(os.path.join(checkpoint_dir, n, 'DONE'))]


def start_server(make_tables: Callable[[], List[reverb.Table]], port: int,
                 checkpoint_dir: Optional[str]) -> reverb.Server:
  """A Reverb server on `port` with the newest intact checkpoint of `checkpoint_dir`
  loaded (see the module docstring)."""
  while True:
    checkpointer = (reverb.checkpointers.DefaultCheckpointer(checkpoint_dir)
                    if checkpoint_dir else None)
    try:
      return reverb.Server(tables=make_tables(), port=port, checkpointer=checkpointer)
    except RuntimeError as error:
      newest = _checkpoints(checkpoint_dir)[-1:] if checkpoint_dir else []
      if not newest:
        raise
      aside = os.path.join(checkpoint_dir + DAMAGED_SUFFIX, os.path.basename(newest[0]))
      os.makedirs(os.path.dirname(aside), exist_ok=True)
      os.rename(newest[0], aside)
      left = 'the one before it is tried' if _checkpoints(checkpoint_dir) else (
          'none is left: the replay starts empty')
      logging.warning('replay checkpoint %s is damaged (%s); moved to %s; %s',
                      newest[0], error, aside, left)


class ReplayNode(lp.ReverbNode):
  """See the module docstring."""
  SUPERVISION_ROLE = 'store'  # Restarted a few times, stopped last (launch.supervision).
  # Only nodes of its own host use it: a multi-host launch may give it a `unix:` address
  # and a network namespace of its own (`replay_socket`).
  HOST_ONLY = True

  def __init__(self, make_tables: Callable[[], List[reverb.Table]],
               checkpoint_dir: Optional[str]):
    super().__init__(make_tables)
    self._checkpoint_dir = checkpoint_dir

  def run(self) -> None:
    launcher_watch.watch()
    address = private.node_address(self).resolve()
    host_only = replay_socket.is_private(address)
    port = (replay_socket.private_port() if host_only
            else lp_address.get_port_from_address(address))
    # Not ReverbNode.run: it would fail on a damaged checkpoint.
    self._server = start_server(private.reverb_tables_fn(self), port, self._checkpoint_dir)
    forwarder = replay_socket.SocketForwarder(address, port) if host_only else None
    worker_manager.wait_for_stop()
    if forwarder:
      forwarder.close()
