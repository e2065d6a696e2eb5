"""A network of the program's own for a local launch: a Linux network namespace whose
only interface is loopback.

Courier (the control edge: `get_stats`, `save`, `stop`) and Reverb listen on `[::]:port`
inside their compiled libraries, with no way to choose the interface in Launchpad 0.5.2
and Reverb 0.7.2, and neither checks who calls. On a shared machine anyone who can reach
it could call `stop()` or read the replay. Inside a namespace of its own the program's
ports exist only there: nodes reach each other on loopback as before, and nothing
outside the namespace can connect to them (the launcher and every node it starts are
inside; logs, checkpoints and metrics are files as before).

`enter(argv)` re-executes this launcher under util-linux's `unshare`, before TensorFlow
or any node starts a thread or opens a socket: `--net` as root, `--user
--map-root-user --net` (a user namespace of one's own) otherwise. The new process then
calls `bring_up_loopback()`, as a new namespace's loopback is down. `launch.local`
enters first thing, before its imports, when `launch_enters` finds its command line
surely asks for a namespace; otherwise after parsing its flags and checking its config.
"""

import fcntl
import os
import shutil
import socket
import struct
import subprocess
import sys
from typing import List, Optional, Sequence

# Set in the re-executed launcher, so it knows it is inside (and its nodes inherit it).
INSIDE_VARIABLE = 'SEED_GRAPH_LOOPBACK_NETWORK'

_SIOCGIFFLAGS = 0x8913
_SIOCSIFFLAGS = 0x8914
_IFF_UP = 0x1


def inside() -> bool:
  return os.environ.get(INSIDE_VARIABLE) == '1'


def launch_enters(args: Sequence[str]) -> bool:
  """Whether a `launch.local` command line (its arguments) surely runs its program in a
  namespace of its own, so it can enter one before it parses and imports anything: not
  inside one yet, and no flag (in any of absl's spellings) that asks for the host's
  network, prints instead of launching, or reads more flags from a file. When in
  doubt, False: the launcher then enters after parsing its flags."""
  if inside():
    return False
  for arg in args:
    name = arg.lstrip('-')
    if not arg.startswith('-') or name == 'network=loopback':
      continue
    if name in ('h', '?') or name.startswith(('network', 'print_config', 'help',
                                              'flagfile')):
      return False
  return True


def unshare_command() -> List[str]:
  """The `unshare` invocation that gives this user a network namespace of its own."""
  if os.geteuid() == 0:
    return ['unshare', '--net']
  return ['unshare', '--user', '--map-root-user', '--net']


def unavailable_reason() -> Optional[str]:
  """Why this machine cannot give us a namespace (no `unshare`, user namespaces
  disabled, ...), or None if it can; checked by trying once."""
  if not sys.platform.startswith('linux'):
    return f'network namespaces are Linux only (this is {sys.platform})'
  if shutil.which('unshare') is None:
    return 'util-linux `unshare` is not installed'
  trial = subprocess.run(unshare_command() + ['true'], capture_output=True, text=True,
                         check=False)
  if trial.returncode:
    return f'`{" ".join(unshare_command())}` failed: {trial.stderr.strip()}'
  return None


def own_command(module: str) -> List[str]:
  """This process's command line, to run again: `sys.orig_argv` (Python 3.10+, keeps
  interpreter options) or, on older Pythons, `python -m module` and `sys.argv[1:]`;
  always by this interpreter (argv[0] may be a bare `python`)."""
  original = getattr(sys, 'orig_argv', None)
  if original:
    return [sys.executable] + list(original[1:])
  return [sys.executable, '-m', module] + sys.argv[1:]


def enter(argv: List[str]):
  """Replaces this process with `argv` (the launcher's own command line, from
  `own_command`) run inside a new network namespace; returns only if it cannot be had,
  with the reason."""
  reason = unavailable_reason()
  if reason:
    return reason
  os.environ[INSIDE_VARIABLE] = '1'
  os.execvp('unshare', unshare_command() + ['--'] + list(argv))


def bring_up_loopback():
  """Sets `lo` up in this process's network namespace (needs CAP_NET_ADMIN there, which
  `enter`'s namespace gives)."""
  with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
    request = struct.pack('16sh', b'lo', 0)
    flags = struct.unpack('16sh', fcntl.ioctl(sock, _SIOCGIFFLAGS, request))[1]
    fcntl.ioctl(sock, _SIOCSIFFLAGS, struct.pack('16sh', b'lo', flags | _IFF_UP))


def interfaces() -> List[str]:
  """The network interfaces this process can use."""
  return [name for _, name in socket.if_nameindex()]
