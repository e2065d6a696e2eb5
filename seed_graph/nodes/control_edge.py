"""The learner's control edge: the Courier methods a program may call, and no others.

Served on the learner node's Courier address:

  get_stats() -> dict        counters, returns and losses (reading: open to any caller
                             that reaches the address)
  save(secret) -> str        writes a checkpoint now; its path
  stop(secret) -> None       stops training; the node saves and the program stops

The calls that change state carry the run's secret (`SEED_GRAPH_RUN_SECRET`, which the
launchers give every node of a run): a wrong or missing one fails that call with
`PermissionError` at the caller and leaves the server serving. In a process started
without a secret (a learner built by hand, in a test) the check is off. The learner's
other public methods (inference, restore, run, shutdown) are not served: Launchpad's
`CourierNode` would serve every public method of the object, so the node builds this
server itself. `LearnerClient` (learner_node.py) adds the secret on the caller's side.
"""

import hmac
from typing import Callable, Optional

from absl import logging
import courier

from seed_graph.inference import transport

METHODS = ('get_stats', 'save', 'stop')


def _requiring_secret(method: Callable, secret: Optional[str]) -> Callable:
  def guarded(caller_secret: str = ''):
    if secret and not hmac.compare_digest(str(caller_secret).encode(), secret.encode()):
      raise PermissionError(f'{method.__name__}: this call does not carry the run\'s '
                            'secret')
    return method()
  return guarded


def make_server(learner, port: int, secret: Optional[str] = None) -> courier.Server:
  """A Courier server (not started) on `port` for `learner`'s control methods; `secret`
  defaults to this process's run secret."""
  secret = transport.run_secret() if secret is None else secret
  server = courier.Server(port=port)
  server.Bind('get_stats', learner.get_stats)
  server.Bind('save', _requiring_secret(learner.save, secret))
  server.Bind('stop', _requiring_secret(learner.stop, secret))
  logging.info('control edge on port %d: %s (save and stop %s)', port, ', '.join(METHODS),
               'need the run secret' if secret else 'open: no run secret here')
  return server
