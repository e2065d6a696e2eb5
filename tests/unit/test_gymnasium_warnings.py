"""Gymnasium's own warnings reach a log file or a pipe without ANSI colour codes, and a
terminal still gets them in colour (seed_graph/envs/gym_adapter.py)."""

import os
import pty
import subprocess
import sys

_WARN = ('import gymnasium\n'
         'from seed_graph.envs import gym_adapter\n'
         "gymnasium.logger.warn('the pole fell %d times', 3)\n")


def test_a_warning_written_to_a_pipe_has_no_colour_codes():
  result = subprocess.run([sys.executable, '-c', _WARN], stderr=subprocess.PIPE,
                          check=True, timeout=120, text=True)
  assert 'WARN: the pole fell 3 times' in result.stderr, result.stderr
  assert '\x1b[' not in result.stderr, repr(result.stderr)


def test_a_warning_written_to_a_terminal_keeps_its_colour():
  controller, terminal = pty.openpty()
  try:
    subprocess.run([sys.executable, '-c', _WARN], stderr=terminal, check=True, timeout=120)
    os.close(terminal)
    terminal = None
    written = b''
    while True:
      try:
        chunk = os.read(controller, 4096)
      except OSError:  # EIO once the terminal's last writer has gone.
        break
      if not chunk:
        break
      written += chunk
  finally:
    if terminal is not None:
      os.close(terminal)
    os.close(controller)
  assert b'WARN: the pole fell 3 times' in written, written
  assert b'\x1b[' in written, written
