"""Everything seed_graph takes from Launchpad's private internals, in one place.

Written against dm-launchpad 0.5.2, the last release, to which the whole stack is pinned
(STACK: TensorFlow 2.8, Reverb 0.7.2). Launchpad has no public way to do these; if a
later release changes any of them, this module is the one to change:

- A `CourierNode` keeps the constructor arguments of the object it builds in `_args` and
  `_kwargs`, and builds it, dereferencing the handles among them, in
  `_construct_instance()`; `_should_run` says whether `run()` of that object is called
  (else the node only serves). The learner node reads its config from them, adds its
  inference port before building, and serves its own control edge instead of Courier's.
- Every `CourierNode` and `ReverbNode` allocates its address as `_address`; a node's
  custom handle is registered with `_track_handle(handle)`, so that Launchpad connects
  and binds it like its own.
- A `ReverbNode` keeps its table factory as `_priority_tables_fn`; the replay node starts
  its own server from it (one that survives a damaged checkpoint).
- Every node records the handles it made in `_created_handles` (the program's picture
  draws an edge from each to the node that made it).
- `_initialize_context(launch_type, launch_config)` is the first of the four steps
  Launchpad's local_mp launcher takes before it starts nodes; the launchers repeat the
  steps to start (and restart) each node themselves.
"""

from typing import Any, Dict, List, Tuple

from launchpad import address as lp_address
from launchpad import context
from launchpad.nodes import base
# pylint: disable=protected-access


def constructor_args(node) -> Tuple[Tuple[Any, ...], Dict[str, Any]]:
  """The positional and keyword arguments a `CourierNode` builds its object with."""
  return node._args, node._kwargs


def set_constructor_args(node, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> None:
  node._args, node._kwargs = tuple(args), dict(kwargs)


def build_instance(node) -> Any:
  """The `CourierNode`'s object, built in this process with its handles dereferenced."""
  return node._construct_instance()


def should_run(node) -> bool:
  """Whether the `CourierNode`'s object is to be run, not only served."""
  return node._should_run


def node_address(node) -> lp_address.Address:
  """The address a `CourierNode` or `ReverbNode` allocated for itself."""
  return node._address


def track_handle(node, handle: base.Handle) -> base.Handle:
  """Registers a node's own handle type as Launchpad registers its built-in ones."""
  return node._track_handle(handle)


def created_handles(node) -> List[base.Handle]:
  """The handles `node` has made (one per node that holds one of its edges)."""
  return list(node._created_handles)


def reverb_tables_fn(node):
  """The table factory a `ReverbNode` was built with."""
  return node._priority_tables_fn


def initialize_context(node, launch_type: context.LaunchType, launch_config=None) -> None:
  """Prepares a node to be turned into executables, as the local_mp launcher does."""
  node._initialize_context(launch_type, launch_config=launch_config)
