"""Every benchmark still runs: each as `python -m benchmarks.<name>` from the repository
root, as its docstring says, on the smallest settings that keep its real code path
(CartPole where it takes a config, windows of a second, one pair or round), and reports
its figures. These check that the benchmarks work, not what they measure: the figures
must be there and plausible (positive rates, the processes it names), not fast."""

import contextlib
import json
import os
import signal
import subprocess
import sys

import pytest

from seed_graph.nodes import replay_socket
from tests import helpers

# The whole program start-up (TensorFlow in every process) dominates most of these.
_TIMEOUT = 240


def run_benchmark(name, *args) -> str:
  """Runs the benchmark to its end; requires exit code 0; returns its stdout."""
  result = subprocess.run([sys.executable, '-m', f'benchmarks.{name}', *args],
                          cwd=helpers.REPO, capture_output=True, text=True, timeout=_TIMEOUT,
                          env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL='2'))
  assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-5000:]
  return result.stdout


def json_lines(stdout):
  return [json.loads(line) for line in stdout.splitlines() if line.startswith('{')]


def last_json(stdout) -> dict:
  records = json_lines(stdout)
  assert records, f'no JSON line in:\n{stdout[-3000:]}'
  return records[-1]


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


def test_revisions():
  # It exports committed revisions (`git archive`): only in a git checkout.
  if subprocess.run(['git', 'rev-parse', '--verify', 'HEAD'], cwd=helpers.REPO,
                    capture_output=True).returncode:
    pytest.skip('benchmarks.revisions exports revisions of a git checkout; this is none')
  # HEAD against itself; local_mt starts a program in half the time of local_mp (whose
  # start-up test_soak covers). 5 s of training a run, timed from the learner's first step.
  local_mt = '--launch_type=local_mt'
  out = run_benchmark('revisions', '--baseline=HEAD', '--candidate=HEAD', '--pairs=1',
                      '--seconds=5', '--skip_seconds=1', f'--baseline_flags={local_mt}',
                      f'--candidate_flags={local_mt}', '--config.actors.num=1',
                      '--config.evaluators.num=0', '--config.logging.interval_seconds=1')
  *runs, summary = json_lines(out)
  assert [r['revision'] for r in runs] == ['baseline', 'candidate']
  assert all(r['frames_per_second'] > 0 and r['learner_steps_per_second'] > 0 for r in runs)
  for role in ('baseline', 'candidate'):
    assert summary[role]['revision'] == 'HEAD' and summary[role]['flags'] == [local_mt]
    assert summary[role]['frames_per_second'] > 0
  assert summary['ratio'] > 0 and len(summary['pairs']) == 1


def test_versus():
  # The other program: a stand-in that prints CleanRL's per-iteration line 20 times a
  # second (CleanRL is not a dependency of the project), so its rate is known.
  other = (f'{sys.executable} -c "import time\nwhile True: print(\'SPS: 1\'); '
           f'time.sleep(0.05)"')
  out = run_benchmark('versus', f'--other_command={other}', '--other_frames_per_line=100',
                      '--config=cartpole_vtrace', '--pairs=1', '--seconds=5',
                      '--skip_seconds=1', '--launcher_flags=--launch_type=local_mt',
                      '--config.actors.num=1', '--config.evaluators.num=0',
                      '--config.logging.interval_seconds=1')
  *runs, summary = json_lines(out)
  assert [r['side'] for r in runs] == ['seed_graph', 'other']
  assert runs[0]['frames_per_second'] > 0 and runs[0]['learner_steps_per_second'] > 0
  assert 1_000 <= runs[1]['frames_per_second'] <= 2_000  # 100 frames, 20 lines a second.
  assert summary['ratio'] == pytest.approx(
      runs[0]['frames_per_second'] / runs[1]['frames_per_second'], rel=0.01)


def test_a_running_total_of_frames_is_read_from_the_pattern_group(tmp_path):
  # Sample Factory's form: a line every so often with the total trained so far, after a
  # start-up of 3 s that the measured window (4 s) does not include.
  from benchmarks import timed_runs  # pylint: disable=g-import-not-at-top
  printer = ('import time\ntry:\n time.sleep(3)\n for i in range(1, 10**6): '
             'print(f"Fps is (...). Total num frames: {i * 500}. Samples: 7"); '
             'time.sleep(0.05)\nexcept KeyboardInterrupt:\n print("stopped by SIGINT")')
  # As under `nohup ... &`: SIGINT ignored here, the program still gets its Ctrl-C.
  previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
  try:
    rate = timed_runs.run_command([sys.executable, '-c', printer], str(tmp_path / 'out'),
                                  seconds=4, skip_seconds=1,
                                  line_pattern=r'Total num frames: (\d+)', frames_per_line=1)
  finally:
    signal.signal(signal.SIGINT, previous)
  assert 5_000 <= rate['frames_per_second'] <= 10_000  # 500 frames, <= 20 lines a second.
  assert rate['seconds'] >= 4
  assert (tmp_path / 'out').read_text().splitlines()[-1] == 'stopped by SIGINT'


def test_an_interrupted_measurement_leaves_no_program_running(tmp_path):
  # The measured program runs in a session of its own (so that a Ctrl-C at a terminal
  # reaches it through the benchmark, in order); a benchmark stopped with `kill -INT`
  # still stops it.
  sleeper = ('import os, sys, time\nopen(sys.argv[1], "w").write(str(os.getpid()))\n'
             'while True: time.sleep(1)')
  pid_file = tmp_path / 'pid'
  measuring = (f'import sys\nfrom benchmarks import timed_runs\n'
               f'timed_runs.run_command([sys.executable, "-c", {sleeper!r}, {str(pid_file)!r}], '
               f'{str(tmp_path / "out")!r}, seconds=600, skip_seconds=0, '
               f'line_pattern="never", frames_per_line=1)')
  benchmark = subprocess.Popen([sys.executable, '-c', measuring], cwd=helpers.REPO,
                               stderr=subprocess.PIPE, text=True)
  try:
    assert helpers.wait_for(lambda: pid_file.exists() and pid_file.read_text(), 60)
    program = int(pid_file.read_text())
    benchmark.send_signal(signal.SIGINT)
    assert 'KeyboardInterrupt' in benchmark.communicate(timeout=60)[1]
    assert helpers.wait_for(lambda: not os.path.exists(f'/proc/{program}'), 10)
  finally:
    benchmark.kill()
    if pid_file.exists() and pid_file.read_text():
      with contextlib.suppress(ProcessLookupError):
        os.kill(int(pid_file.read_text()), signal.SIGKILL)


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


def _kill_marked(marker, process):
  process.kill()  # A no-op once it has exited.
  for leftover in helpers.marked_processes(marker):
    with contextlib.suppress(Exception):  # It may have just exited.
      leftover.kill()


def _killed_once_training(suite, run) -> int:
  """Starts the suite with SIGINT ignored, SIGTERMs it once the learner has stepped, and
  checks that it stopped saving, leaving no process; the frames trained."""
  marker = f'atari-suite-{os.getpid()}'
  suite_process = subprocess.Popen(
      [sys.executable, '-m', 'benchmarks.atari_suite', *suite[1:]], cwd=helpers.REPO,
      env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL='2', **{helpers.MARKER_VARIABLE: marker}),
      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
      preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
  try:
    assert helpers.wait_for(lambda: any(m['learner_steps'] for m in helpers.read_metrics(run)),
                            _TIMEOUT), 'no learner step'
    suite_process.terminate()
    _, errors = suite_process.communicate(timeout=_TIMEOUT)
  except BaseException:
    _kill_marked(marker, suite_process)
    raise
  nothing_left = helpers.wait_for(lambda: not helpers.marked_processes(marker), 30)
  _kill_marked(marker, suite_process)
  assert nothing_left, 'the launcher outlived the suite'
  assert suite_process.returncode == 1 and 'stopped and saved' in errors.splitlines()[-1]
  assert helpers.latest_checkpoint(run)
  frames = helpers.read_metrics(run)[-1]['frames']
  assert 0 < frames < 20000  # Stopped, not finished.
  return frames


def test_atari_suite(tmp_path):
  helpers.needs('ale_py')
  root, output = tmp_path / 'runs', tmp_path / 'results'
  suite = ('atari_suite', '--games=Pong', '--seeds=3', f'--root={root}',
           f'--output_dir={output}', '--config.actors.num=1',
           '--config.actors.env_batch_size=4', '--config.evaluators.num=0',
           '--config.learner.batch_size=4', '--config.learner.minibatches=2',
           '--config.logging.interval_seconds=1', '--eval_episodes=1')
  # Started as `nohup ... &` starts it (SIGINT ignored), `kill` stops the run in order.
  interrupted = _killed_once_training(suite + ('--frames=20000',), root / 'Pong' / 'seed3')
  # Resumed to a larger budget: the change is on the page.
  suite += ('--frames=24000',)
  run_benchmark(*suite)
  with open(output / 'atari.json') as f:
    (run,) = json.load(f)['runs']
  assert (run['game'], run['seed'], run['budget']) == ('Pong', 3, 24000)
  assert run['frames'] >= 24000 and run['wall_clock_seconds'] > 0
  assert -21 <= run['final_return'] <= 21 and run['frames_to_anchor'] is None
  assert run['config'] == 'atari_cleanrl_vtrace' and run['commit']
  assert run['budget_changes'] == [{'at_frames': interrupted, 'from': 20000, 'to': 24000}]
  # The finished run's final checkpoint played its game (an untrained agent: no point).
  evaluated = json.loads((root / 'Pong' / 'seed3' / 'eval.json').read_text())
  assert evaluated['checkpoint'].endswith(helpers.latest_checkpoint(root / 'Pong' / 'seed3'))
  assert run['evaluated'] == {'mean_return': evaluated['mean_return'], 'std_return': 0.0,
                              'episodes': 1, 'epsilon': evaluated['epsilon']}
  assert -21 <= evaluated['mean_return'] <= 0
  # Another setting in that run's directory fails before training, naming the way out.
  other = subprocess.run([sys.executable, '-m', 'benchmarks.atari_suite', *suite[1:],
                          '--config.learner.epochs=2'], cwd=helpers.REPO,
                         capture_output=True, text=True, timeout=_TIMEOUT)
  assert other.returncode != 0 and '--variant' in other.stderr.splitlines()[-1]
  assert helpers.read_metrics(root / 'Pong' / 'seed3')[-1]['frames'] == run['frames']
  page = (output / 'atari.md').read_text()
  assert '| Pong | atari_cleanrl_vtrace | 1 | 0.024M |' in page
  assert (output / 'atari.png').stat().st_size > 0
  assert f'budget 0.02M until {interrupted / 1e6:.2f}M, then 0.024M' in page
  assert ('atari_suite --config=atari_cleanrl_vtrace --games=Pong --seeds=3 '
          '--frames=24000 --config.actors.num=1 ') in page  # The command for the row.
  # A complete run is not trained again; the report is written again.
  out = run_benchmark(*suite)
  assert 'Pong seed 3: complete' in out and 'plays' not in out  # Evaluated once.
  with open(root / 'Pong' / 'seed3' / 'suite.json') as f:
    assert len(json.load(f)['launches']) == 2


def test_another_configs_runs_have_directories_of_their_own(tmp_path):
  # A run of the default config in seed0, an R2D2 run in atari_cleanrl_r2d2-seed0: the
  # R2D2 suite checks its own directory (here holding a run of another setting, so it
  # stops before training, naming that directory), not the V-trace run's.
  root = tmp_path / 'runs'
  for directory, config in (('seed0', 'atari_cleanrl_vtrace'),
                            ('atari_cleanrl_r2d2-seed0', 'atari_cleanrl_vtrace')):
    (root / 'Pong' / directory).mkdir(parents=True)
    (root / 'Pong' / directory / 'suite.json').write_text(json.dumps(
        {'config': config, 'overrides': [], 'game': 'Pong', 'seed': 0, 'launches': []}))
  refused = subprocess.run(
      [sys.executable, '-m', 'benchmarks.atari_suite', '--config=atari_cleanrl_r2d2',
       '--games=Pong', '--seeds=0', f'--root={root}', f'--output_dir={tmp_path}'],
      cwd=helpers.REPO, capture_output=True, text=True, timeout=_TIMEOUT)
  assert refused.returncode != 0
  assert refused.stderr.splitlines()[-1].startswith(
      f'error: {root / "Pong" / "atari_cleanrl_r2d2-seed0"} holds a run of '
      '--config=atari_cleanrl_vtrace')
