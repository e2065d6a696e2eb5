"""R2D2 sequence writing into a real Reverb server, frame stacking and epsilons."""

import os

import numpy as np
import pytest
import reverb
import tensorflow as tf

from seed_graph.algos.r2d2 import exploration
from seed_graph.algos.r2d2 import frame_stack
from seed_graph.algos.r2d2 import sequences

OBS_BYTES = 2000


def _server(layout, tmp_path, state_size=4, capacity=10_000):
  signature = sequences.table_signature(layout, (OBS_BYTES,), np.uint8, state_size)
  table = reverb.Table('replay', sampler=reverb.selectors.Fifo(),
                       remover=reverb.selectors.Fifo(), max_size=capacity,
                       max_times_sampled=1,  # Reading removes: each item is seen once.
                       rate_limiter=reverb.rate_limiters.MinSize(1), signature=signature)
  server = reverb.Server([table], port=None,
                         checkpointer=reverb.checkpointers.DefaultCheckpointer(
                             str(tmp_path / 'replay')))
  return server, reverb.Client(f'localhost:{server.port}')


def _write(writer, env_ids, num_steps, rng, start=0):
  """Step t of env e: action = 1000 * e + t, observation random (incompressible)."""
  env_ids = np.asarray(env_ids)
  for t in range(start, start + num_steps):
    writer.append(env_ids, {
        'observation': rng.integers(0, 256, (len(env_ids), OBS_BYTES), dtype=np.uint8),
        'prev_action': (1000 * env_ids + t - 1).astype(np.int32),
        'reward': np.full(len(env_ids), t, np.float32),
        'done': np.zeros(len(env_ids), bool),
        'truncation': np.zeros(len(env_ids), bool),
        'action': (1000 * env_ids + t).astype(np.int32),
    }, np.zeros((len(env_ids), 3), np.float32),
        np.tile(np.arange(4, dtype=np.float32), (len(env_ids), 1)) + t +
        1000 * env_ids[:, None])


def _all_items(client, count):
  dataset = reverb.TrajectoryDataset.from_table_signature(
      client.server_address, 'replay', max_in_flight_samples_per_worker=1, max_samples=count)
  return [sample.data for sample in dataset]


def test_layout_arithmetic():
  layout = sequences.SequenceLayout(burn_in=40, unroll_length=80, stack=4)
  assert layout.sequence_length == 121
  assert layout.stored_length == 124
  assert layout.period == 80


def test_sequences_overlap_by_the_burn_in_and_share_chunks(tmp_path):
  layout = sequences.SequenceLayout(burn_in=6, unroll_length=8, stack=1)  # 15 steps.
  server, client = _server(layout, tmp_path)
  priorities = []
  writer = sequences.SequenceWriter(
      client, 'replay', num_envs=3, layout=layout, num_actions=3, chunk_length=4,
      priority_fn=lambda s: priorities.append(s) or np.ones(s['action'].shape[1]))
  rng = np.random.default_rng(0)
  steps = 8 * 30 + 7  # Sequences start at 0, 8, 16, ...; the last one ends at 246.
  _write(writer, [0, 2], steps, rng)
  writer.flush_all()
  expected_per_env = (steps - 15) // 8 + 1
  assert writer.items_created == 2 * expected_per_env
  assert client.server_info()['replay'].current_size == 2 * expected_per_env

  # Shared chunks: the checkpoint holds each step's observation about once, not once per
  # sequence (15 / 8 ~ 1.9 times) — the observations are incompressible random bytes.
  client.checkpoint()
  stored = sum(os.path.getsize(os.path.join(d, f))
               for d, _, files in os.walk(tmp_path / 'replay') for f in files)
  step_bytes = 2 * steps * OBS_BYTES
  referenced_bytes = writer.items_created * layout.stored_length * OBS_BYTES
  assert referenced_bytes > 1.8 * step_bytes
  assert stored < 1.1 * step_bytes, (stored, step_bytes)

  items = _all_items(client, 2 * expected_per_env)
  starts = {0: [], 2: []}
  for item in items:
    actions = item['action'].numpy()
    env, first = divmod(int(actions[0]), 1000)
    np.testing.assert_array_equal(actions, 1000 * env + first + np.arange(15))
    np.testing.assert_array_equal(item['reward'].numpy(), first + np.arange(15))
    # The recurrent state is the one before the sequence's first step.
    np.testing.assert_array_equal(item['core_state'].numpy(),
                                  np.arange(4) + first + 1000 * env)
    starts[env].append(first)
  for env in (0, 2):
    # Consecutive sequences start unroll_length apart: they share burn_in + 1 steps, the
    # next one's burn-in being the end of this one's unroll.
    assert sorted(starts[env]) == list(range(0, 8 * expected_per_env, 8))

  # The priority function saw each sequence's last 15 steps in time order.
  assert all(p['action'].shape[0] == 15 for p in priorities)
  first_batch = priorities[0]['action']
  np.testing.assert_array_equal(first_batch[:, 0], np.arange(15))
  np.testing.assert_array_equal(first_batch[:, 1], 2000 + np.arange(15))
  writer.close()
  server.stop()


def test_leading_steps_for_frame_stacking_and_reset(tmp_path):
  layout = sequences.SequenceLayout(burn_in=2, unroll_length=4, stack=3)  # 7 (+2) steps.
  server, client = _server(layout, tmp_path)
  writer = sequences.SequenceWriter(client, 'replay', 1, layout, 3, chunk_length=3,
                                    priority_fn=lambda s: np.ones(s['action'].shape[1]))
  rng = np.random.default_rng(1)
  _write(writer, [0], 9 + 4, rng)  # Items end at steps 9 and 13.
  assert writer.items_created == 2
  writer.reset([0])  # A new actor run: no sequence spans it.
  _write(writer, [0], 10, rng, start=100)
  writer.flush_all()
  assert writer.items_created == 3
  items = sorted(_all_items(client, 3), key=lambda d: int(d['action'][0]))
  firsts = [int(item['action'][0]) for item in items]
  assert firsts == [0, 4, 100]
  for item in items:
    assert item['action'].shape == (9,)
    first = int(item['action'][0]) % 1000
    # The stored state is the one before the first non-leading step (2 leading steps).
    np.testing.assert_array_equal(item['core_state'].numpy(), np.arange(4) + first + 2)
  writer.close()
  server.stop()


def test_table_full_applies_back_pressure_then_resumes(tmp_path):
  # A rate limiter that allows 2 more inserts than samples: the writer blocks (in slices,
  # giving up only when stopped) instead of failing or dropping.
  import threading  # pylint: disable=g-import-not-at-top
  layout = sequences.SequenceLayout(burn_in=1, unroll_length=2, stack=1)
  signature = sequences.table_signature(layout, (OBS_BYTES,), np.uint8, 4)
  table = reverb.Table('replay', sampler=reverb.selectors.Uniform(),
                       remover=reverb.selectors.Fifo(), max_size=100,
                       rate_limiter=reverb.rate_limiters.SampleToInsertRatio(
                           samples_per_insert=1.0, min_size_to_sample=1,
                           error_buffer=(-2.0, 2.0)),
                       signature=signature)
  server = reverb.Server([table], port=None)
  client = reverb.Client(f'localhost:{server.port}')
  stop = threading.Event()
  writer = sequences.SequenceWriter(client, 'replay', 1, layout, 3, chunk_length=1,
                                    priority_fn=lambda s: np.ones(s['action'].shape[1]),
                                    stop_event=stop, flush_timeout_ms=100)
  rng = np.random.default_rng(2)
  done = threading.Event()

  def produce():
    _write(writer, [0], 4 + 2 * 20, rng)  # 21 sequences (at steps 4, 6, ..., 44).
    done.set()

  thread = threading.Thread(target=produce, daemon=True)
  thread.start()
  assert not done.wait(3.0), 'the writer should be held back by the rate limiter'
  blocked_size = client.server_info()['replay'].current_size
  assert blocked_size < 21
  dataset = reverb.TrajectoryDataset.from_table_signature(
      client.server_address, 'replay', max_in_flight_samples_per_worker=1,
      rate_limiter_timeout_ms=2000)
  for _ in dataset.take(40):  # Sampling lets the inserts through.
    if done.is_set():
      break
  assert done.wait(30.0)
  assert writer.items_created == 21
  stop.set()
  writer.close()
  server.stop()


def test_training_epsilons_ape_x():
  eps = exploration.training_epsilons(8)
  expected = [0.4 ** (1 + 7 * i / 7) for i in range(8)]
  np.testing.assert_allclose(eps, expected, rtol=1e-6)
  assert eps[0] == pytest.approx(0.4) and eps[-1] == pytest.approx(0.4 ** 8)
  assert np.all(np.diff(eps) < 0)
  np.testing.assert_allclose(exploration.training_epsilons(1), [0.4])
  np.testing.assert_allclose(exploration.training_epsilons(3), [0.4, 0.4 ** 4.5, 0.4 ** 8],
                             rtol=1e-6)


def test_frame_stacker_matches_learner_stacking():
  rng = np.random.default_rng(3)
  steps, envs, stack = 12, 2, 4
  frames = rng.integers(1, 256, (steps, envs, 3, 3), dtype=np.uint8)
  dones = rng.random((steps, envs)) < 0.25
  stacker = frame_stack.FrameStacker(envs, (3, 3), np.uint8, stack)
  inference = []
  for t in range(steps):
    starts = dones[t] | (t == 0)
    inference.append(stacker(np.arange(envs), frames[t], starts).copy())
  learner_dones = dones.copy()
  learner_dones[0] = True
  learner = frame_stack.stack_frames(frames, learner_dones, stack).numpy()
  np.testing.assert_array_equal(np.stack(inference)[stack - 1:], learner)
