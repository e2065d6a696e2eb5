r"""Load on the inference edge across hosts: one server, many actor streams.

  python -m benchmarks.edge_load [--streams=256] [--client_processes=4] [--rounds=2] \
      [--seconds=15]            # as root: network namespaces stand in for hosts
  python -m benchmarks.edge_load --nonamespaces ...   # loopback only, no root needed

A smoke run (seconds): `--nonamespaces --streams=8 --client_processes=2 --rounds=1
--seconds=1`.

One process runs the learner's inference server (`InferenceServer`: stream slots,
request parsing, dynamic batching, the run secret) around a policy that answers zeros,
so the edge is what is measured. `client_processes` processes hold `streams` streams
between them; each stream sends one 4-environment CartPole-sized request at a time and
times its answer. Rounds alternate two set-ups: everything on loopback in one namespace,
and the server on one host namespace with the clients on another, through a bridge (as
in `tests/integration/test_multi_host.py`). With `--nonamespaces` only the loopback
set-up runs, in this machine's own network (on a free port). Reported per set-up:
requests/s and rows/s over all streams, and the p50 and p99 latency of a request (a line
per round, then JSON of every round).
"""

import json
import multiprocessing
import subprocess
import sys
import time

from absl import app
from absl import flags
import numpy as np

_STREAMS = flags.DEFINE_integer('streams', 256, 'Actor streams in all.')
_PROCESSES = flags.DEFINE_integer('client_processes', 4, 'Processes holding them.')
_ROUNDS = flags.DEFINE_integer('rounds', 2, 'Rounds of each set-up, alternating.')
_SECONDS = flags.DEFINE_float('seconds', 15.0, 'Measured seconds per round.')
_NAMESPACES = flags.DEFINE_bool(
    'namespaces', True, 'Both set-ups, hosts standing in as network namespaces (root); '
    "false: the loopback set-up alone, in this machine's network.")
_ROWS = 4  # Environments per request.
_SECRET = 'edge-load-secret'
_PORT = 24000  # In a namespace of its own.


def serve(port: int, max_callers: int):
  """Runs the server until killed."""
  from seed_graph.inference import messages  # pylint: disable=g-import-not-at-top
  from seed_graph.inference import server as server_lib  # pylint: disable=g-import-not-at-top
  envs = max_callers * _ROWS
  parser = messages.RequestParser((4,), np.float32, envs, envs, max_rows=64)
  answer = lambda requests: [np.zeros(len(r.env_ids), np.int32) for r in requests]
  server = server_lib.InferenceServer(parser, answer, 64, 2000, max_callers)
  server.start(port, _SECRET)
  print('serving', flush=True)
  time.sleep(3600)


def _stream_loop(address, first_stream, count, seconds, results):
  import threading  # pylint: disable=g-import-not-at-top
  from seed_graph.inference import messages  # pylint: disable=g-import-not-at-top
  from seed_graph.inference import transport  # pylint: disable=g-import-not-at-top
  client = transport.InferenceClient(address, secret=_SECRET)
  latencies = [[] for _ in range(count)]
  start_at = time.time() + 3.0  # Every stream open before the clock runs.
  stop_at = start_at + seconds

  def loop(index):
    env_ids = np.arange(_ROWS, dtype=np.int32) + (first_stream + index) * _ROWS
    request = messages.encode_request(env_ids, np.ones(_ROWS, np.int64),
                                      np.zeros(_ROWS, np.float32), np.zeros(_ROWS, bool),
                                      np.zeros(_ROWS, bool), np.zeros((_ROWS, 4), np.float32),
                                      False)
    stream = client.open_stream()
    stream.infer(request)
    while time.time() < start_at:
      time.sleep(0.01)
    while time.time() < stop_at:
      sent = time.perf_counter()
      stream.infer(request)
      latencies[index].append(time.perf_counter() - sent)
    stream.close()
  threads = [threading.Thread(target=loop, args=(i,)) for i in range(count)]
  for thread in threads:
    thread.start()
  for thread in threads:
    thread.join()
  results.put([x for per_stream in latencies for x in per_stream])


def clients(address: str, streams: int, processes: int, seconds: float) -> dict:
  results = multiprocessing.Queue()
  per_process = streams // processes
  workers = [multiprocessing.Process(target=_stream_loop, args=(
      address, p * per_process, per_process, seconds, results)) for p in range(processes)]
  for worker in workers:
    worker.start()
  latencies = np.concatenate([np.array(results.get(), np.float64) for _ in workers])
  for worker in workers:
    worker.join()
  return {'requests_per_second': round(len(latencies) / seconds, 1),
          'rows_per_second': round(len(latencies) * _ROWS / seconds, 1),
          'p50_ms': round(float(np.percentile(latencies, 50)) * 1e3, 2),
          'p99_ms': round(float(np.percentile(latencies, 99)) * 1e3, 2)}


class _ThisMachine:
  """`netns_hosts.HostNetwork`'s interface for processes on this machine's own network."""

  def run(self, host, argv, **popen_kwargs) -> subprocess.Popen:
    del host
    return subprocess.Popen(argv, **popen_kwargs)

  def in_namespace(self, host):
    del host
    return []


def _run_round(network, across: bool, port: int) -> dict:
  server_host, client_host = ('learner', 'cpu0') if across else ('learner', 'learner')
  here = [sys.executable, '-m', 'benchmarks.edge_load']
  server = network.run(server_host, here + ['--mode=serve', f'--streams={_STREAMS.value}',
                                            f'--port={port}'],
                       stdout=subprocess.PIPE, text=True)
  try:
    if server.stdout.readline().strip() != 'serving':
      raise RuntimeError(f'the server did not start (exit code {server.wait()})')
    address = f'{network.addresses["learner"] if across else "localhost"}:{port}'
    result = subprocess.run(network.in_namespace(client_host) + here + [
        '--mode=clients', f'--address={address}', f'--streams={_STREAMS.value}',
        f'--client_processes={_PROCESSES.value}', f'--seconds={_SECONDS.value}'],
        capture_output=True, text=True, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])
  finally:
    server.kill()
    server.wait()


_MODE = flags.DEFINE_enum('mode', 'compare', ['compare', 'serve', 'clients'], 'Internal.')
_ADDRESS = flags.DEFINE_string('address', None, 'Internal: the server to load.')
_SERVE_PORT = flags.DEFINE_integer('port', _PORT, 'Internal: the port to serve on.')


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f'unexpected arguments: {argv[1:]}')
  if _MODE.value == 'serve':
    serve(_SERVE_PORT.value, _STREAMS.value + 8)
    return
  if _MODE.value == 'clients':
    print(json.dumps(clients(_ADDRESS.value, _STREAMS.value, _PROCESSES.value,
                             _SECONDS.value)))
    return
  if _NAMESPACES.value:
    from seed_graph.launch.network import netns_hosts  # pylint: disable=g-import-not-at-top
    results = {'loopback': [], 'across_hosts': []}
    with netns_hosts.HostNetwork(['learner', 'cpu0']) as network:
      for _ in range(_ROUNDS.value):
        for name in results:
          results[name].append(_run_round(network, name == 'across_hosts', _PORT))
          print(name, results[name][-1], flush=True)
  else:
    import portpicker  # pylint: disable=g-import-not-at-top
    results = {'loopback': []}
    for _ in range(_ROUNDS.value):
      results['loopback'].append(_run_round(_ThisMachine(), False,
                                            portpicker.pick_unused_port()))
      print('loopback', results['loopback'][-1], flush=True)
  print(json.dumps({'streams': _STREAMS.value, 'client_processes': _PROCESSES.value,
                    'rows_per_request': _ROWS, 'namespaces': _NAMESPACES.value,
                    'rounds': results}))


if __name__ == '__main__':
  app.run(main)
