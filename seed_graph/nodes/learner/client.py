"""What other nodes hold of a learner: `LearnerHandle`, which Launchpad pickles into
their processes, and the `LearnerClient` it dereferences to there, with both edges (the
inference stream and the control edge).

This module imports no TensorFlow (nor anything of the learner's own process), so that
an actor or evaluator unpickling its handle does not load it: the handle in the learner
node's module made every V-trace actor and evaluator import TensorFlow at start.
"""

from typing import Dict

import courier
from launchpad import address as lp_address
from launchpad.nodes import base

from seed_graph.inference import transport

# A control-edge call that gets no answer within this fails (DEADLINE_EXCEEDED) instead
# of waiting: Courier's client waits for a server to come up, and a call blocked in
# C++ keeps Python's signal handlers from running, so a node calling a learner that had
# already stopped would never see Ctrl-C.
CONTROL_CALL_TIMEOUT_SECONDS = 30.0


class LearnerClient:
  """What a dereferenced learner handle gives other nodes: both edges."""

  def __init__(self, courier_address: str, inference_address: str,
               keepalive_seconds: float = transport.KEEPALIVE_SECONDS,
               control_timeout_seconds: float = CONTROL_CALL_TIMEOUT_SECONDS):
    self._courier_address = courier_address
    self._control_timeout_seconds = control_timeout_seconds
    self.inference = transport.InferenceClient(inference_address, keepalive_seconds,
                                               secret=transport.run_secret())
    self._control = None

  @property
  def control(self) -> courier.Client:
    """The raw Courier client of the control edge (each call's first argument is the
    run secret); a call unanswered within `control_timeout_seconds` raises."""
    if self._control is None:
      self._control = courier.Client(self._courier_address,
                                     call_timeout=self._control_timeout_seconds)
    return self._control

  def get_stats(self) -> dict:
    """Counters, returns and losses (the call carries this process's run secret, as
    every call below does)."""
    return self.control.get_stats(transport.callers_secret())

  def save(self) -> str:
    """A checkpoint now; its path."""
    return self.control.save(transport.callers_secret())

  def stop(self) -> None:
    """Stops the learner, which saves and stops the program."""
    self.control.stop(transport.callers_secret())

  # Population-based training (`seed_graph/nodes/learner/tuning.py`).
  def get_weights(self) -> Dict[str, bytes]:
    return self.control.get_weights(transport.callers_secret())

  def set_weights(self, state: Dict[str, bytes], source: str = '') -> None:
    self.control.set_weights(transport.callers_secret(), state, source)

  def get_hyperparameters(self) -> Dict[str, float]:
    return self.control.get_hyperparameters(transport.callers_secret())

  def set_hyperparameters(self, values: Dict[str, float]) -> Dict[str, float]:
    return self.control.set_hyperparameters(transport.callers_secret(), values)


class LearnerHandle(base.Handle[LearnerClient]):
  """A learner's two addresses (resolved in the holder's process) and the inference
  stream's keepalive."""

  def __init__(self, courier_address: lp_address.Address,
               inference_address: lp_address.Address, keepalive_seconds: float):
    self._courier_address = courier_address
    self._inference_address = inference_address
    self._keepalive_seconds = keepalive_seconds

  def dereference(self) -> LearnerClient:
    return LearnerClient(self._courier_address.resolve(),
                         self._inference_address.resolve(), self._keepalive_seconds)
