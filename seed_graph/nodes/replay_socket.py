"""A replay that only the nodes of its own host reach: through a Unix socket, from a
network namespace of its own.

Reverb 0.7.2 defect: its server listens on `[::]:port`, every interface, and checks no
credentials, so on a host whose ports face a network (a cluster node, an SSH host)
anyone who can reach the port can read its tables' sizes and insert or sample. A local
program does not need this (all of it runs in a loopback-only namespace, see
`seed_graph.launch.network.loopback_network`); a multi-host program does.

So on such a host the launcher starts the replay node's process under
`NAMESPACE_COMMAND` (`unshare`: a user namespace that maps the user to root, and a
network namespace in it; no privilege needed where the kernel allows unprivileged user
namespaces). In there `private_port()` brings loopback up and picks a port, Reverb
serves on it, and `SocketForwarder` connects a Unix socket at the node's address
(`unix:<path>`) to it. A filesystem socket belongs to no network namespace: the
learner, outside, reaches the replay as `unix:<path>` (gRPC's own scheme). The socket
is made by the run's user, mode 0600, in a directory of theirs, mode 0700; no network
reaches it.
"""

import fcntl
import os
import socket
import struct
import subprocess
import tempfile
import threading
from typing import Optional

from absl import logging

SCHEME = 'unix:'
NAMESPACE_COMMAND = ('unshare', '--user', '--map-root-user', '--net', '--')
_BUFFER_BYTES = 1 << 20
_MAX_PATH_BYTES = 107  # sockaddr_un's sun_path, less its terminating zero.
_SIOCGIFFLAGS, _SIOCSIFFLAGS, _IFF_UP = 0x8913, 0x8914, 0x1


def is_private(address: str) -> bool:
  return address.startswith(SCHEME)


def address(run_id: str, node_name: str) -> str:
  """`unix:<path>` of a run's node on a host: the same in every process of the run, in
  the temporary folder, or in /tmp where that would make the path longer than a Unix
  socket's 107 bytes (a scheduler's deep per-job $TMPDIR)."""
  name = f'seed_graph-{os.getuid()}/{run_id[:16]}-{node_name.replace("/", "-")}.sock'
  path = os.path.join(tempfile.gettempdir(), name)
  return SCHEME + (path if len(path.encode()) <= _MAX_PATH_BYTES else f'/tmp/{name}')


def namespaces_unavailable() -> Optional[str]:
  """Why this host cannot start a process under `NAMESPACE_COMMAND`, or None if it can."""
  try:
    result = subprocess.run([*NAMESPACE_COMMAND, 'true'], capture_output=True,
                            text=True, timeout=30)
  except (OSError, subprocess.TimeoutExpired) as error:
    return f'{NAMESPACE_COMMAND[0]}: {error}'
  if result.returncode:
    return (result.stderr.strip().splitlines() or ['exit code ' + str(result.returncode)])[-1]
  return None


def _interfaces():
  with open('/proc/net/dev') as f:
    return [line.split(':')[0].strip() for line in f.readlines()[2:]]


def private_port() -> int:
  """In the process's own network namespace (loopback its only interface, else
  RuntimeError: the replay would face the host's network): loopback up, a free port."""
  if _interfaces() != ['lo']:
    raise RuntimeError(f'the replay at a {SCHEME} address must run in a network namespace '
                       f'of its own (interfaces here: {", ".join(_interfaces())})')
  with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as control:
    request = struct.pack('16sH', b'lo', 0)
    flags = struct.unpack('16sH', fcntl.ioctl(control, _SIOCGIFFLAGS, request))[1]
    fcntl.ioctl(control, _SIOCSIFFLAGS, struct.pack('16sH', b'lo', flags | _IFF_UP))
  with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
    probe.bind(('127.0.0.1', 0))
    return probe.getsockname()[1]


def _pump(source: socket.socket, sink: socket.socket) -> None:
  """Copies `source` to `sink` until `source` ends or either fails, then ends `sink`'s
  writing."""
  buffer = memoryview(bytearray(_BUFFER_BYTES))
  try:
    while True:
      size = source.recv_into(buffer)
      if not size:
        break
      sink.sendall(buffer[:size])
  except OSError:
    pass
  try:
    sink.shutdown(socket.SHUT_WR)
  except OSError:
    pass


def _join(client: socket.socket, server: socket.socket) -> None:
  """Both directions at once (neither waits on the other's reading), then closes both."""
  back = threading.Thread(target=_pump, args=(server, client), daemon=True)
  back.start()
  _pump(client, server)
  back.join()
  client.close()
  server.close()


class SocketForwarder:
  """Accepts on the Unix socket of `unix_address` and joins each connection to
  127.0.0.1:`port`, in daemon threads, until `close()`."""

  def __init__(self, unix_address: str, port: int):
    self.path = unix_address[len(SCHEME):]
    os.makedirs(os.path.dirname(self.path), mode=0o700, exist_ok=True)
    os.chmod(os.path.dirname(self.path), 0o700)
    if os.path.exists(self.path):
      os.unlink(self.path)  # Left by an earlier process of this node.
    self._port = port
    self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_mask = os.umask(0o177)  # Created 0600: no moment of a wider mode.
    try:
      self._listener.bind(self.path)
    finally:
      os.umask(old_mask)
    self._listener.listen(64)
    threading.Thread(target=self._accept, name='replay-socket', daemon=True).start()
    logging.info('replay reached through %s (port %d of its own loopback)', self.path, port)

  def _accept(self) -> None:
    while True:
      try:
        client, _ = self._listener.accept()
      except OSError:
        return  # Closed.
      try:
        server = socket.create_connection(('127.0.0.1', self._port))
        # As gRPC's own sockets: without it, Nagle's algorithm and delayed ACKs held each
        # small message ~40 ms (benchmarks.replay_socket: 16 batches/s against 450).
        server.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
      except OSError as error:
        logging.warning('replay socket: the server did not answer (%s)', error)
        client.close()
        continue
      threading.Thread(target=_join, args=(client, server), daemon=True).start()

  def close(self) -> None:
    self._listener.close()
    if os.path.exists(self.path):
      os.unlink(self.path)
