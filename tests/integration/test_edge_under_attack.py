"""The inference edge under hostile input while real actors train (loopback only).

A separate process sends every class of bad message the fault campaign found, at a bounded
rate, in windows alternating with quiet ones, while a learner in this process trains from
two actor processes (as in a program): the learner must not crash, actors keep at least 0.7
of their frame rate, each bad stream gets INVALID_ARGUMENT (or is refused or closed), and
the learner's memory comes back within 20%.
"""

import json
import multiprocessing
import os
import signal
import struct
import threading
import time

import numpy as np
import portpicker
import psutil

from seed_graph.nodes.learner import shell as learner_lib
from seed_graph.algos.vtrace import learning as vtrace_learner
from tests import helpers

PAIRS = 5                  # Quiet and attacked windows, alternating.
WINDOW_SECONDS = 2.0
MESSAGES_PER_SECOND = 150  # As the campaign's fuzzer: about 9,200 messages in 60 s.
DROPPED_STREAMS = 200      # Opened and closed without a word, as in the campaign.


def _bad_messages(rng, oversized: bool):
  """One message of each class, made fresh (some are random); `oversized` adds one
  larger than any legal request."""
  from seed_graph.inference import messages  # pylint: disable=g-import-not-at-top
  from seed_graph.inference import wire  # pylint: disable=g-import-not-at-top

  def header(value):
    raw = value.encode() if isinstance(value, str) else json.dumps(value).encode()
    return wire.MAGIC + struct.pack('<I', len(raw)) + raw

  ids = np.array([0, 1], np.int32)
  fields = dict(env_ids=ids, run_ids=np.ones(2, np.int64), rewards=np.zeros(2, np.float32),
                dones=np.zeros(2, bool), truncations=np.zeros(2, bool),
                observations=np.zeros((2, 4), np.float32), is_eval=False)
  valid = messages.encode_request(**fields)
  bad = {
      'random bytes': rng.bytes(int(rng.integers(1, 400))),
      'truncated': valid[:int(rng.integers(1, len(valid)))],
      'huge dimensions': header({'arrays': [['a', '<f4', [2**32, 2**32]]], 'meta': {}}),
      'overflowing product': header({'arrays': [['a', '<f4', [2**31] * 3]], 'meta': {}}),
      'deep nesting': header('[' * 60_000),
      'wrong dtype': messages.encode_request(**dict(fields, env_ids=ids.astype(np.int64))),
      'wrong shape': messages.encode_request(
          **dict(fields, observations=np.zeros((2, 5), np.float32))),
      'huge ids': messages.encode_request(**dict(fields, env_ids=np.array([0, 2**31 - 1],
                                                                            np.int32))),
      'nan reward': messages.encode_request(**dict(fields, rewards=np.array([0, np.nan],
                                                                            np.float32))),
      'inf observation': messages.encode_request(
          **dict(fields, observations=np.full((2, 4), np.inf, np.float32))),
  }
  if oversized:
    bad['oversized'] = b'\0' * (8 << 20)
  return bad


def _attack(address, stop, sent, results):
  """Runs in its own process: cycles through every class until `stop` is set. The test
  pauses it (SIGSTOP) for its quiet windows; a bounded rate and no catching up after a
  pause keep the load what it says."""
  import grpc  # pylint: disable=g-import-not-at-top
  from seed_graph.inference import transport  # pylint: disable=g-import-not-at-top
  rng = np.random.default_rng(0)
  client = transport.InferenceClient(address)
  codes = {}
  dropped = cycles = 0
  while not stop.is_set():
    for name, message in _bad_messages(rng, oversized=cycles % 10 == 0).items():
      stream = client.open_stream()
      try:
        stream.infer(message)
        codes[name] = 'answered'
      except grpc.RpcError as error:
        codes.setdefault(name, str(error.code()))
      stream.close()
      sent.value += 1
      time.sleep(1.0 / MESSAGES_PER_SECOND)
    if dropped < DROPPED_STREAMS:
      for _ in range(10):
        client.open_stream().close()
      dropped += 10
    cycles += 1
    results.update(codes)


def _run_actor(address, env_config, env_ids, seed, stop):
  """Runs in its own process, as an actor node does."""
  from seed_graph.nodes import actor as actor_lib  # pylint: disable=g-import-not-at-top
  # pylint: disable-next=g-import-not-at-top
  from seed_graph.nodes.learner import client as learner_client
  client = learner_client.LearnerClient('localhost:1', address)
  actor_lib.Actor(client, env_config, env_ids, seed=seed, stop_event=stop).run()


def _frames_per_second(learner, seconds):
  start_frames, start = learner.get_stats()['frames'], time.time()
  time.sleep(seconds)
  return (learner.get_stats()['frames'] - start_frames) / (time.time() - start)


def _attacked_to_quiet_ratios(learner, attacker):
  """This machine's speed drifts by tens of percent within seconds: short quiet and
  attacked windows, alternating, compare the two under the same conditions."""
  ratios = []
  for _ in range(PAIRS):
    os.kill(attacker.pid, signal.SIGSTOP)
    time.sleep(0.5)
    quiet = _frames_per_second(learner, WINDOW_SECONDS)
    os.kill(attacker.pid, signal.SIGCONT)
    time.sleep(0.5)
    ratios.append(_frames_per_second(learner, WINDOW_SECONDS) / quiet)
  return ratios


def test_bad_messages_do_not_stop_or_slow_training(tmp_path):
  config = helpers.small_cartpole_config(tmp_path, **{'logging.interval_seconds': 100.0})
  port = portpicker.pick_unused_port()
  learner = learner_lib.Learner(config, vtrace_learner.VTrace, inference_port=port)
  training = threading.Thread(target=learner.run)
  training.start()
  spawn = multiprocessing.get_context('spawn')
  stop = spawn.Event()
  actors = [spawn.Process(target=_run_actor, args=(
      f'localhost:{port}', config.env, list(range(4 * i, 4 * i + 4)), i, stop))
            for i in range(2)]
  for actor in actors:
    actor.start()
  process = psutil.Process(os.getpid())
  results = spawn.Manager().dict()
  try:
    assert helpers.wait_for(lambda: learner.get_stats()['learner_steps'] >= 5, 120)
    time.sleep(2.0)
    rss_before = process.memory_info().rss
    steps_before = learner.get_stats()['learner_steps']
    stop_attack, sent = spawn.Event(), spawn.Value('q', 0)
    attacker = spawn.Process(target=_attack,
                             args=(f'localhost:{port}', stop_attack, sent, results))
    attacker.start()
    assert helpers.wait_for(lambda: sent.value > 0, 60)  # Its interpreter has started.
    ratios = _attacked_to_quiet_ratios(learner, attacker)
    stop_attack.set()
    attacker.join(timeout=60)
    assert attacker.exitcode == 0
    time.sleep(3.0)
    rss_after = process.memory_info().rss
    stats = learner.get_stats()
  finally:
    stop.set()
    learner.stop()
    for worker in actors + [training]:
      worker.join(timeout=60)
  print(f'\nattacked/quiet frames/s per pair: {", ".join(f"{r:.2f}" for r in ratios)}; '
        f'learner RSS {rss_before / 2**20:.0f} -> {rss_after / 2**20:.0f} MiB; '
        f'{sent.value} bad messages, {stats["rejected_requests"]} rejected')
  assert not training.is_alive()
  assert [actor.exitcode for actor in actors] == [0, 0]
  invalid = {name for name, code in results.items() if code == 'StatusCode.INVALID_ARGUMENT'}
  assert invalid == set(results) - {'oversized'}, dict(results)
  assert results['oversized'] == 'StatusCode.RESOURCE_EXHAUSTED'
  assert stats['rejected_requests'] >= len(invalid)
  assert stats['learner_steps'] > steps_before  # Training went on through the attack.
  assert np.median(ratios) >= 0.7, ratios
  assert rss_after <= 1.2 * rss_before, (rss_before, rss_after)
