"""The learner's control edge: the Courier methods a program may call, and no others.

Served on the learner node's Courier address:

  get_stats(secret) -> dict  counters, returns and losses
  get_hyperparameters(secret) -> dict   the changeable hyperparameters' values
  save(secret) -> str        writes a checkpoint now; its path
  stop(secret) -> None       stops training; the node saves and the program stops
  get_weights(secret) -> dict[str, bytes]       the trained state (networks, optimizer)
  set_weights(secret, state, source) -> None    loads another learner's trained state
  set_hyperparameters(secret, values) -> dict   sets some hyperparameters; all of them

The last three are population-based training's exploit and explore
(`seed_graph/nodes/learner/tuning.py`). Every call carries the run's secret
(`SEED_GRAPH_RUN_SECRET`, which the launchers give every node of a run and keep
themselves), reads included: across hosts the control port listens on every interface,
and a run's statistics are its owner's. A wrong or missing secret fails that call with
`PermissionError` at the caller and leaves the server serving. In a process started
without a secret (a learner built by hand, in a test) the check is off. The learner's
other public methods (inference, restore, run, shutdown) are not served: Launchpad's
`CourierNode` would serve every public method of the object, so the node builds this
server itself. `LearnerClient` (client.py) adds the secret on the caller's side.
"""

import hmac
from typing import Callable, Optional

from absl import logging
import courier

from seed_graph.inference import transport

METHODS = ('get_stats', 'get_hyperparameters', 'save', 'stop', 'get_weights', 'set_weights',
           'set_hyperparameters')


def _requiring_secret(method: Callable, secret: Optional[str]) -> Callable:
  def guarded(caller_secret: str = '', *args, **kwargs):
    if secret and not hmac.compare_digest(str(caller_secret).encode(), secret.encode()):
      raise PermissionError(f'{method.__name__}: this call does not carry the run\'s '
                            'secret')
    return method(*args, **kwargs)
  return guarded


def make_server(learner, port: int, secret: Optional[str] = None) -> courier.Server:
  """A Courier server (not started) on `port` for `learner`'s control methods; `secret`
  defaults to this process's run secret."""
  secret = transport.run_secret() if secret is None else secret
  server = courier.Server(port=port)
  methods = {'get_stats': learner.get_stats, 'save': learner.save, 'stop': learner.stop,
             'get_hyperparameters': learner.tuning.get_hyperparameters,
             'get_weights': learner.tuning.get_weights,
             'set_weights': learner.tuning.set_weights,
             'set_hyperparameters': learner.tuning.set_hyperparameters}
  for name in METHODS:
    server.Bind(name, _requiring_secret(methods[name], secret))
  logging.info('control edge on port %d: %s (%s)', port, ', '.join(METHODS),
               'each needs the run secret' if secret else 'open: no run secret here')
  return server
