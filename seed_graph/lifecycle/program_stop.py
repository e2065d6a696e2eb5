"""Whether this node's Launchpad program is stopping, and how a node stops it.

Read the stop event's flag (`Event.is_set`), never `lp.wait_for_stop(0)`, from a node's
main thread: `wait_for_stop(0)` takes the event's lock, and the SIGTERM/SIGINT handler
that sets the event runs on that same thread, so a signal arriving inside the call
waits forever for a lock its own thread holds (seen: an actor hung until killed).
"""

import threading
from typing import Optional

from absl import logging
import launchpad as lp


def stop_event() -> Optional[threading.Event]:
  """The program's stop event, or None outside a Launchpad worker (direct use, tests)."""
  try:
    return lp.stop_event()
  except Exception:  # pylint: disable=broad-except
    return None


def stopping() -> bool:
  event = stop_event()
  return event is not None and event.is_set()


def stop_program():
  """Asks the launcher to stop the whole program (a no-op outside one)."""
  try:
    lp.stop()
  except Exception:  # pylint: disable=broad-except
    logging.info('No Launchpad program to stop.')
