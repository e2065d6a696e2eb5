"""The launcher's terminal: a status line, the launcher's messages, and the node output
that needs a person (warnings, errors, tracebacks).

Every node's whole output is in its log file (`node_process.py`); what reaches the console
is chosen by `ConsoleFilter`: absl warnings and errors (`W1123 ...`, `E...`, `F...`),
Python `WARNING:`/`ERROR:` lines, whole tracebacks, and the lines a node wrote for the
console (`seed_graph.lifecycle.console_notes`). Informational lines, Launchpad's binding
lines and stop countdown, emulator banners and the learner's progress lines (the status
line says the same) stay in the logs.

On a terminal the status line is redrawn in place (a carriage return, no other control
codes) and lines are printed above it; elsewhere (a file, a pipe, a scheduler's log)
each status is a plain line of its own.
"""

import re
import shutil
import sys
import threading
from typing import Optional, TextIO

from seed_graph.lifecycle import console_notes

_SHOWN = re.compile(r'^([WEF]\d{4} \d\d:\d\d:\d\d|WARNING:|ERROR:|CRITICAL:|FATAL|'
                    + re.escape(console_notes.MARKER) + ')')


class ConsoleFilter:
  """`shows(line)`: whether one node's output line belongs on the console. Keeps state,
  so a traceback is shown whole: one filter per node process."""

  def __init__(self):
    self._in_traceback = False

  def shows(self, line: str) -> bool:
    if line.startswith('Traceback (most recent call last)'):
      self._in_traceback = True
      return True
    if self._in_traceback:
      # Frames and source lines are indented; the exception line that ends it is not.
      if line and not line[0].isspace():
        self._in_traceback = False
      return True
    return bool(_SHOWN.match(line))


class Console:
  """Writes to `stream` (stdout) from any thread. `show_all` (`--console=all`) shows
  every node line."""

  def __init__(self, stream: Optional[TextIO] = None, show_all: bool = False,
               interactive: Optional[bool] = None):
    self._stream = stream or sys.stdout
    self.show_all = show_all
    self.interactive = (self._stream.isatty() if interactive is None else interactive)
    self._lock = threading.Lock()
    self._status = ''

  def line(self, text: str):
    """A line of its own, above the status line on a terminal."""
    with self._lock:
      self._clear_status()
      self._stream.write(text.rstrip('\n') + '\n')
      self._draw_status()
      self._stream.flush()

  def node_line(self, node: str, text: str, console_filter: ConsoleFilter):
    if self.show_all or console_filter.shows(text):
      if text.startswith(console_notes.MARKER):
        text = text[len(console_notes.MARKER):]
      self.line(f'[{node}] {text}')

  def status(self, text: str):
    """Replaces the status line (a terminal), or prints it as a line (elsewhere)."""
    if not self.interactive:
      self.line(text)
      return
    # Wider than the terminal, it would wrap, and \r returns to its last row only.
    width = shutil.get_terminal_size((200, 24)).columns - 1
    with self._lock:
      self._clear_status()
      self._status = text[:width]
      self._draw_status()
      self._stream.flush()

  def end_status(self):
    """Leaves the last status line on the screen, and draws no more."""
    with self._lock:
      if self.interactive and self._status:
        self._stream.write('\n')
        self._stream.flush()
      self._status = ''

  def _clear_status(self):
    if self.interactive and self._status:
      self._stream.write('\r' + ' ' * len(self._status) + '\r')

  def _draw_status(self):
    if self.interactive and self._status:
      self._stream.write(self._status)
