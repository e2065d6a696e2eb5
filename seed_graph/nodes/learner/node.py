"""The learner-inference node: a `CourierNode` whose Courier address serves the control
edge (`control_edge.py`: `get_stats`, `save`, `stop` and population-based training's
methods), with a second address for the
central inference stream.

`LearnerNode(config, make_algorithm, *algorithm_args, tasks=None)` runs a
`learner.Learner` in its process (`tasks`: {name: environment ids}, for returns per
task); its handle (`client.py`) dereferences, in other nodes, to a `LearnerClient` with
both edges.
Each learner has a logdir of its own (`config.logdir`; `use_logdir` moves it before
launch); as it starts it records its config there if there is none yet
(`seed_graph.config.record`).
"""

import copy
import sys
from typing import Callable, Mapping, Optional, Sequence

from launchpad import address as lp_address
from launchpad.launch import worker_manager
from launchpad.nodes.courier import node as courier_node
import ml_collections

from seed_graph.config import record as config_record
from seed_graph.lifecycle import launcher_watch
from seed_graph.nodes.learner import planned_restart
from seed_graph.algos import base as base_algorithm
from seed_graph.algos import precision
from seed_graph.nodes import launchpad_private as private
from seed_graph.nodes.learner import client
from seed_graph.nodes.learner import control_edge
from seed_graph.nodes.learner import shell as learner

INFERENCE_PORT_NAME = 'inference'


class LearnerNode(courier_node.CourierNode):
  """See the module docstring."""
  # Restarted a few times; a clean exit ends the program; stopped after the acting nodes
  # (launch.supervision).
  SUPERVISION_ROLE = 'learner'

  def __init__(self, config: ml_collections.ConfigDict,
               make_algorithm: Callable[..., base_algorithm.Algorithm], *algorithm_args,
               tasks: Optional[Mapping[str, Sequence[int]]] = None):
    super().__init__(learner.Learner, config, make_algorithm, *algorithm_args,
                     tasks=tasks)
    self._inference_address = lp_address.Address(INFERENCE_PORT_NAME)
    self.allocate_address(self._inference_address)

  @property
  def config(self) -> ml_collections.ConfigDict:
    """The config this learner is built with."""
    return private.constructor_args(self)[0][0]

  @property
  def logdir(self) -> str:
    """Where this learner keeps its checkpoints, metrics and config (one learner each)."""
    return self.config.logdir

  def use_logdir(self, logdir: str) -> None:
    """Points this learner, before launch, at `logdir` (a copy of its config: another
    node may hold the same config object)."""
    config = copy.deepcopy(self.config)
    config.logdir = logdir
    args, kwargs = private.constructor_args(self)
    private.set_constructor_args(self, (config,) + tuple(args[1:]), kwargs)

  def control_address(self) -> str:
    """The control edge's `host:port` (once the program's addresses are bound), for a
    launcher's own calls such as `get_stats`."""
    return private.node_address(self).resolve()

  def create_handle(self) -> client.LearnerHandle:
    return private.track_handle(self, client.LearnerHandle(
        private.node_address(self), self._inference_address,
        self.config.inference.keepalive_seconds))

  def run(self) -> None:
    supervised = launcher_watch.watch()  # A process of its own that a launcher restarts.
    config_record.record_if_absent(self.config)  # A member's logdir: evaluable alone.
    # A machine that cannot compute an explicit bfloat16 fails here, in one line.
    precision.check_supported(self.config.network, precision.onednn_enabled(),
                              self.config.learner.training_strategy == 'mirrored')
    choice = precision.describe(self.config.network, precision.onednn_enabled())
    if choice:  # What this learner's torso computes in, as decided here.
      print(f'[learner] {choice}', flush=True)
    # The inference server listens on its address's host only (loopback locally, the
    # host's private address across hosts); Courier and Reverb cannot choose.
    host, port = self._inference_address.resolve().rsplit(':', 1)
    args, kwargs = private.constructor_args(self)
    private.set_constructor_args(self, args, dict(
        kwargs, inference_port=int(port), inference_host=host, planned_restarts=supervised))
    instance = private.build_instance(self)  # Dereferences handles (R2D2's replay).
    # Not CourierNode.run: it would serve every public method of the learner.
    self._server = control_edge.make_server(
        instance, lp_address.get_port_from_address(private.node_address(self).resolve()))
    self._server.Start()
    try:
      if private.should_run(self):
        instance.run()
      else:
        worker_manager.wait_for_stop()
    finally:
      self._server.Stop()
      self._server.Join()
    if instance.restart_reason:  # Saved; the supervisor starts this node again at once.
      sys.exit(planned_restart.PLANNED_RESTART_EXIT_CODE)
