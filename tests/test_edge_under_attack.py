"""The inference edge under hostile input while real actors train (loopback only).

A separate process sends every class of bad message the fault campaign found, at a
bounded rate for a bounded time, while a learner in this process trains from two actor
processes (as in a program): the learner must not crash, actors keep at least 0.7 of their frame rate, each
bad stream gets INVALID_ARGUMENT (or is refused or closed), and the learner's memory
comes back within 20%.
"""

import json
import multiprocessing
import os
import struct
import threading
import time

import numpy as np
import portpicker
import psutil

from seed_graph.nodes import learner as learner_lib
from seed_graph.nodes import vtrace_learner
from tests import helpers

ATTACK_SECONDS = 8.0
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


def _attack(address, seconds, results):
  """Runs in its own process: cycles through every class until `seconds` pass."""
  import grpc  # pylint: disable=g-import-not-at-top
  from seed_graph.inference import transport  # pylint: disable=g-import-not-at-top
  rng = np.random.default_rng(0)
  client = transport.InferenceClient(address)
  codes = {}
  start = time.time()
  sent = dropped = cycles = 0
  while time.time() < start + seconds:
    for name, message in _bad_messages(rng, oversized=cycles % 10 == 0).items():
      stream = client.open_stream()
      try:
        stream.infer(message)
        codes[name] = 'answered'
      except grpc.RpcError as error:
        codes.setdefault(name, str(error.code()))
      stream.close()
      sent += 1
      time.sleep(max(0.0, start + sent / MESSAGES_PER_SECOND - time.time()))
    if dropped < DROPPED_STREAMS:
      for _ in range(10):
        client.open_stream().close()
      dropped += 10
    cycles += 1
  results.update(codes)


def _run_actor(address, env_config, env_ids, seed, stop):
  """Runs in its own process, as an actor node does."""
  from seed_graph.nodes import actor as actor_lib  # pylint: disable=g-import-not-at-top
  from seed_graph.nodes import learner_node  # pylint: disable=g-import-not-at-top
  client = learner_node.LearnerClient('localhost:1', address)
  actor_lib.Actor(client, env_config, env_ids, seed=seed, stop_event=stop).run()


def _frames_per_second(learner, seconds):
  start_frames, start = learner.get_stats()['frames'], time.time()
  time.sleep(seconds)
  return (learner.get_stats()['frames'] - start_frames) / (time.time() - start)


def test_bad_messages_do_not_stop_or_slow_training(tmp_path):
  config = helpers.small_cartpole_config(tmp_path, **{'logging.interval_seconds': 100.0})
  port = portpicker.pick_unused_port()
  learner = learner_lib.Learner(config, vtrace_learner.VTraceLearner, inference_port=port)
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
    before = _frames_per_second(learner, 4.0)
    rss_before = process.memory_info().rss
    steps_before = learner.get_stats()['learner_steps']
    attacker = spawn.Process(
        target=_attack, args=(f'localhost:{port}', ATTACK_SECONDS, results))
    attacker.start()
    time.sleep(1.0)  # The attacker's interpreter starting is not the attack.
    during = _frames_per_second(learner, ATTACK_SECONDS - 2.0)
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
  print(f'\nframes/s before {before:.0f}, during the attack {during:.0f} '
        f'({during / before:.2f}); learner RSS {rss_before / 2**20:.0f} -> '
        f'{rss_after / 2**20:.0f} MiB; rejected {stats["rejected_requests"]}')
  assert not training.is_alive()
  assert [actor.exitcode for actor in actors] == [0, 0]
  invalid = {name for name, code in results.items() if code == 'StatusCode.INVALID_ARGUMENT'}
  assert invalid == set(results) - {'oversized'}, dict(results)
  assert results['oversized'] == 'StatusCode.RESOURCE_EXHAUSTED'
  assert stats['rejected_requests'] >= len(invalid)
  assert stats['learner_steps'] > steps_before  # Training went on through the attack.
  assert during >= 0.7 * before, (during, before)
  assert rss_after <= 1.2 * rss_before, (rss_before, rss_after)
