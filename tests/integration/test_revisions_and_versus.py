"""The benchmarks that time whole programs side by side (`benchmarks.revisions`,
`benchmarks.versus`, through `benchmarks/timed_runs.py`): they run, measure a window
timed from the end of start-up, and leave no program running whatever stops them."""

import contextlib
import os
import signal
import subprocess
import sys

import pytest

from tests import helpers
from tests.benchmark_runs import json_lines, run_benchmark


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
  # As at a terminal: SIGINT at its default in the benchmark, whether or not these tests
  # run with it ignored (`nohup ... &` without job control), which a child inherits.
  benchmark = subprocess.Popen([sys.executable, '-c', measuring], cwd=helpers.REPO,
                               stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
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
