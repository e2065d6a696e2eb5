"""Every speed benchmark still runs, on the smallest settings that keep its real code
path (CartPole where it takes a config, windows of a second, one pair or round), and
reports its figures. These check that the benchmarks work, not what they measure: the
figures must be there and plausible (positive rates, the processes it names), not fast.
The timed program comparisons are in test_revisions_and_versus.py, the Atari suite in
test_atari_suite.py."""

import json

import pytest

from seed_graph.nodes import replay_socket
from tests import helpers
from tests.benchmark_runs import json_lines, last_json, run_benchmark


def test_throughput():
  out = run_benchmark('throughput', '--env=cartpole', '--processes=1', '--env_batch_size=4',
                      '--env_groups=1', '--pairs=1', '--window_seconds=1',
                      '--warmup_seconds=0.5', '--settle_seconds=0.2')
  result = last_json(out)
  assert result['env'] == 'cartpole' and len(result['pairs']) == 1
  assert result['env_only_frames_per_second'] > 0
  assert result['central_inference_frames_per_second'] > 0
  assert result['ratio'] > 0 and result['learner_cpu_cores'] > 0
  assert result['pairs'][0]['mean_inference_batch_rows'] > 0
  assert 'median ratio' in out


def test_end_to_end():
  out = run_benchmark('end_to_end', '--config=cartpole_vtrace', '--pairs=1',
                      '--window_seconds=1', '--settle_seconds=0.2', '--warmup_seconds=0',
                      '--config.actors.num=1', '--config.actors.env_batch_size=8')
  result = last_json(out)
  assert result['config'] == 'cartpole_vtrace'
  assert result['overrides'] == ['actors.num=1', 'actors.env_batch_size=8']
  assert (result['algorithm'], result['actors'], result['env_batch_size']) == ('vtrace', 1, 8)
  assert result['training_frames_per_second'] > 0
  assert result['env_only_frames_per_second'] > 0
  assert result['ratio'] > 0 and result['learner_steps_per_second'] > 0
  assert result['training_processes_peak_rss_gib'] > 0
  assert 'median: training' in out


def test_end_to_end_launched():
  # The program as users launch it, its evaluator included; rates from metrics records.
  out = run_benchmark('end_to_end', '--config=cartpole_vtrace', '--pairs=1', '--launched',
                      '--window_seconds=3', '--settle_seconds=0.5', '--warmup_seconds=0',
                      '--config.actors.num=1', '--config.logging.interval_seconds=0.5')
  result = last_json(out)
  assert result['launched'] and (result['actors'], result['evaluators']) == (1, 1)
  assert result['training_frames_per_second'] > 0 and result['ratio'] > 0
  assert result['learner_steps_per_second'] > 0
  assert result['training_processes_peak_rss_gib'] > 0
  assert 'median: training' in out


def test_env_backends():
  helpers.needs('envpool')
  out = run_benchmark('env_backends', '--pairs=1', '--window_seconds=1',
                      '--settle_seconds=0.2', '--config.actors.num=1',
                      '--config.actors.env_batch_size=2')
  result = last_json(out)
  assert result['config'] == 'atari_vtrace_fast'
  assert (result['actors'], result['env_batch_size']) == (1, 2)
  assert result['python'] > 0 and result['envpool'] > 0
  assert result['ratio'] > 0 and len(result['pairs']) == 1


def test_inference_call():
  out = run_benchmark('inference_call', '--config=cartpole_vtrace', '--rows=4',
                      '--calls=5')
  result = last_json(out)
  assert result['config'] == 'cartpole_vtrace' and result['rows'] == 4
  assert [r['jit_compile'] for r in result['results']] == [False, True]
  for timing in result['results']:
    assert timing['calls'] == 5 and timing['wall_ms'] > 0 and timing['cpu_ms'] > 0


def test_training_step():
  out = run_benchmark('training_step', '--config=cartpole_vtrace', '--batches=2', '--ops=3',
                      '--config.onednn=true')
  result = last_json(out)
  assert (result['config'], result['algorithm'], result['batches']) == (
      'cartpole_vtrace', 'vtrace', 2)
  # oneDNN's instruction set as the launchers set it (this test's environment has none).
  assert result['onednn'] and result['max_cpu_isa'] == 'AVX512_CORE_BF16'
  assert result['wall_ms'] > 0 and result['cpu_ms'] > 0
  assert 1 <= len(result['ops']) <= 3
  assert all(row['ms'] > 0 and 0 < row['share'] <= 1 for row in result['ops'])
  assert 'Process' not in [row['op'] for row in result['ops']]  # Ops, not their executor.


def test_inference_devices():
  out = run_benchmark('inference_devices', '--devices=1,2', '--rounds=1', '--seconds=1',
                      '--config=cartpole_vtrace', '--rows=4')
  *measurements, summary = json_lines(out)
  assert [m['inference_devices'] for m in measurements] == [1, 2]
  assert len(measurements[1]['per_device']) == 2  # Both devices served.
  assert all(rows > 0 for m in measurements for rows in m['per_device'])
  assert set(summary['median_rows_per_second']) == {'1', '2'}
  assert summary['ratio_to_first']['1'] == 1.0 and summary['ratio_to_first']['2'] > 0


def test_edge_load_on_loopback():
  # Loopback only: the namespace set-up needs root (tests/integration/test_multi_host.py
  # covers the namespaces).
  out = run_benchmark('edge_load', '--nonamespaces', '--streams=8', '--client_processes=2',
                      '--rounds=1', '--seconds=1')
  result = last_json(out)
  assert result['namespaces'] is False and list(result['rounds']) == ['loopback']
  (round_,) = result['rounds']['loopback']
  assert round_['requests_per_second'] > 0 and round_['rows_per_second'] > 0
  assert 0 < round_['p50_ms'] <= round_['p99_ms']


def test_replay_memory():
  # Atari (the benchmark's subject): its R2D2 learner stacks frames, so the replay holds
  # single frames, as the replay node's does.
  out = run_benchmark('replay_memory', '--distinct_frames=200', '--config.replay.capacity=64',
                      '--config.replay.min_size_to_sample=16')
  result = last_json(out)
  assert result['config'] == 'atari_r2d2'
  assert result['observation_shape'] == [84, 84] and result['frame_stack'] == 4
  assert result['capacity'] == result['table_size'] == 64
  assert result['steps_written'] > 0 and result['bytes_per_sequence'] > 0


def test_replay_socket():
  reason = replay_socket.namespaces_unavailable()
  if reason:
    pytest.skip(f'user namespaces are off here: {reason}')
  out = run_benchmark('replay_socket', '--items=8', '--batch=4', '--sequence_bytes=10000',
                      '--seconds=1', '--pairs=1')
  turns, result = json_lines(out)[:-1], last_json(out)
  assert [t['kind'] for t in turns] == ['port', 'socket']
  assert all(t['batches_per_second'] > 0 for t in turns)
  assert result['socket_over_port'] > 0 and result['batch'] == 4


def test_soak(tmp_path):
  out = run_benchmark('soak', '--minutes=0.4', '--sample_seconds=2', '--actors=1',
                      f'--out={tmp_path / "soak.json"}', f'--logdir={tmp_path / "run"}',
                      '--config.evaluators.num=0', '--config.logging.interval_seconds=1')
  result = last_json(out)
  assert result['launcher_exit_code'] == 0 and not result['ended_by_itself']
  assert result['stop_seconds'] is not None and result['processes_left'] == []
  assert result['final_checkpoint']
  assert not [line for line in result['errors_in_output'] if 'Traceback' in line]
  assert result['frames'] > 0 and result['frames_per_second'] > 0
  assert set(result['peak']['rss_mib_by_node']) == {'launcher', 'learner/0', 'actor/0'}
  assert result['peak']['total_rss_mib'] > 0
  assert set(result['rss_from_minute_5']) == {'launcher', 'learner/0', 'actor/0'}
  for node in result['rss_from_minute_5'].values():  # Nothing was replaced in the run.
    assert node['replaced'] == 0 and isinstance(node['projected_24h_percent'], float)
  with open(tmp_path / 'soak.json') as f:
    assert len(json.load(f)['samples']) == result['samples'] > 0


def test_cpu_profile(tmp_path):
  out = run_benchmark('cpu_profile', '--config=cartpole_vtrace', '--warmup_seconds=2',
                      '--seconds=3', f'--out={tmp_path / "profile.json"}',
                      f'--logdir={tmp_path / "run"}', '--config.evaluators.num=0',
                      '--config.actors.num=1', '--config.logging.interval_seconds=1')
  result = last_json(out)
  assert set(result['process_cores']) == {'launcher', 'learner/0', 'actor/0'}
  assert result['process_cores']['learner/0'] > 0 and result['process_cores']['actor/0'] > 0
  assert 0 < result['machine_busy_cores'] <= result['machine_cores']
  assert result['frames_per_second'] > 0 and result['learner_cpu_ms_per_training_step'] > 0
  threads = {row['thread']: row for row in result['learner_threads']}
  batcher = threads['inference-batcher-0']  # A Python thread, named, and what it ran:
  assert batcher['cores'] > 0 and any('seed_graph/' in f for f in batcher['functions'])
  assert 'native' in threads  # TensorFlow's own threads.
  with open(tmp_path / 'profile.json') as f:
    assert json.load(f)['learner_threads'] == result['learner_threads']


@pytest.mark.football
def test_football_academy(tmp_path):
  helpers.needs('gfootball')
  # A target of 0: stops (Ctrl-C) at the first finished episode; max_frames caps it.
  out = run_benchmark('football_academy', f'--logdir={tmp_path / "football"}',
                      '--metric=episode_return', '--target=0', '--max_frames=3000',
                      '--config.actors.num=1', '--config.actors.env_batch_size=2',
                      '--config.evaluators.num=0', '--config.learner.batch_size=2',
                      '--config.logging.interval_seconds=1')
  result = last_json(out)
  assert result['launcher_exit_code'] == 0
  assert result['reached'] and 0 < result['frames_at_target'] <= result['final_frames']
  assert result['wall_seconds_at_target'] > 0 and result['curve_every_10th']
