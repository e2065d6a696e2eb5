r"""What the replay's Unix socket costs the learner's sampling, against Reverb's own port.

  python -m benchmarks.replay_socket [--sequence_bytes=854000] [--batch=64] \
      [--items=128] [--seconds=5] [--pairs=3]

Across hosts the replay serves from a network namespace of its own and the learner
reaches it through a forwarder's Unix socket (`seed_graph.nodes.replay_socket`); on one
machine, through Reverb's port. Two replay processes hold the same table (`--items`
sequences of `--sequence_bytes` bytes each; the default is an R2D2 Atari sequence: 121
single 84x84 frames, as the learner stacks them): one served on a loopback port, one
started under the namespace command and reached through its socket. This process
samples `--batch` sequences at a time (a learner step of atari_r2d2) from each for
`--seconds`, alternating, `--pairs` times. Prints a JSON line per turn (MB/s, batches/s),
then the medians and the median of the per-pair ratios socket / port. A smoke run:
`--items=8 --batch=4 --sequence_bytes=10000 --seconds=1 --pairs=1`.
"""

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '2')

from absl import app  # pylint: disable=g-import-not-at-top
from absl import flags
import numpy as np

from seed_graph.nodes import replay_socket

_SEQUENCE_BYTES = flags.DEFINE_integer('sequence_bytes', 121 * 84 * 84,
                                       'Bytes of one stored sequence.', lower_bound=1)
_BATCH = flags.DEFINE_integer('batch', 64, 'Sequences a sample call asks for.', lower_bound=1)
_ITEMS = flags.DEFINE_integer('items', 128, 'Sequences in each table.', lower_bound=1)
_SECONDS = flags.DEFINE_float('seconds', 5.0, 'Sampling time per turn.')
_PAIRS = flags.DEFINE_integer('pairs', 3, 'Turns of each, alternating.', lower_bound=1)
_REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# A replay process: its address on the first line of its output, then it serves until
# its input closes. argv: 'port' (Reverb's own, on loopback) or the socket's address.
_SERVE = '''
import socket, sys
import reverb
from seed_graph.nodes import replay_socket
table = reverb.Table('replay', reverb.selectors.Uniform(), reverb.selectors.Fifo(),
                     max_size=1_000_000, rate_limiter=reverb.rate_limiters.MinSize(1))
if sys.argv[1] == 'port':
  with socket.socket() as probe:
    probe.bind(('127.0.0.1', 0))
    port = probe.getsockname()[1]
  server, address = reverb.Server([table], port=port), f'localhost:{port}'
else:
  port = replay_socket.private_port()
  server, address = reverb.Server([table], port=port), sys.argv[1]
  forwarder = replay_socket.SocketForwarder(address, port)
print(address, flush=True)
sys.stdin.read()
'''


def _start(kind: str, folder: str) -> tuple:
  """(process, address) of a replay process: 'port' or 'socket' (in `folder`)."""
  if kind == 'port':
    argv = [sys.executable, '-c', _SERVE, 'port']
  else:
    argv = [*replay_socket.NAMESPACE_COMMAND, sys.executable, '-c', _SERVE,
            f'unix:{folder}/replay.sock']
  process = subprocess.Popen(argv, cwd=_REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True)
  return process, process.stdout.readline().strip()


def _fill(client) -> None:
  sequence = np.random.default_rng(0).integers(0, 255, _SEQUENCE_BYTES.value, dtype=np.uint8)
  for _ in range(_ITEMS.value):
    client.insert([sequence], priorities={'replay': 1.0})


def _turn(client) -> dict:
  """Samples batches for `--seconds`; MB/s and batches/s."""
  batches, started = 0, time.perf_counter()
  while time.perf_counter() - started < _SECONDS.value:
    got = sum(1 for _ in client.sample('replay', num_samples=_BATCH.value))
    assert got == _BATCH.value, got
    batches += 1
  seconds = time.perf_counter() - started
  return {'mb_per_second': batches * _BATCH.value * _SEQUENCE_BYTES.value / seconds / 1e6,
          'batches_per_second': batches / seconds}


def main(argv):
  del argv
  import reverb  # pylint: disable=g-import-not-at-top
  reason = replay_socket.namespaces_unavailable()
  if reason:
    sys.exit(f'error: this host cannot start a network namespace of its own ({reason})')
  folder = tempfile.mkdtemp(prefix='sgrs', dir='/tmp')  # A socket's path is short.
  servers = {kind: _start(kind, folder) for kind in ('port', 'socket')}
  try:
    clients = {kind: reverb.Client(address) for kind, (_, address) in servers.items()}
    for client in clients.values():
      _fill(client)
    turns = {kind: [] for kind in clients}
    for pair in range(_PAIRS.value):
      for kind, client in clients.items():
        turns[kind].append(_turn(client))
        print(json.dumps({'kind': kind, 'pair': pair, **turns[kind][-1]}), flush=True)
  finally:
    for process, _ in servers.values():
      process.stdin.close()
      process.wait(timeout=60)
    shutil.rmtree(folder, ignore_errors=True)
  medians = {kind: statistics.median(t['mb_per_second'] for t in turns[kind])
             for kind in turns}
  ratio = statistics.median(s['mb_per_second'] / p['mb_per_second']
                            for s, p in zip(turns['socket'], turns['port']))
  print(json.dumps({'sequence_bytes': _SEQUENCE_BYTES.value, 'batch': _BATCH.value,
                    'port_mb_per_second': medians['port'],
                    'socket_mb_per_second': medians['socket'],
                    'socket_over_port': ratio}), flush=True)


if __name__ == '__main__':
  app.run(main)
