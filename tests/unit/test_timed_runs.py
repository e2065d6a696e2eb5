"""The steady rate the end-to-end comparisons (`revisions`, `versus`) report: measured
from the end of start-up, which for our learner includes its first step; and the program
measured is stopped whatever ends the measurement."""

import os
import sys
import threading
import time

import pytest

from benchmarks import timed_runs


def test_the_window_starts_at_skip_seconds_and_ends_at_the_last_point():
  points = [(0.5, 0, 0), (1.0, 100, 1), (3.0, 500, 5), (5.0, 900, 9)]
  rate = timed_runs.steady_rate(points, skip_seconds=1.0)
  assert rate == pytest.approx({'frames_per_second': 200.0, 'seconds': 4.0,
                                'learner_steps_per_second': 2.0})


def test_reports_before_the_learners_first_step_are_start_up():
  # Actors stream frames while the learner traces its first step (seconds on CI).
  points = [(1.0, 100, 0), (2.0, 300, 0), (3.0, 500, 1), (5.0, 900, 5)]
  rate = timed_runs.steady_rate(points, skip_seconds=1.0)
  assert rate == pytest.approx({'frames_per_second': 200.0, 'seconds': 2.0,
                                'learner_steps_per_second': 2.0})


def test_a_learner_that_never_stepped_gives_no_rate():
  assert timed_runs.steady_rate([(1.0, 100, 0), (2.0, 300, 0), (3.0, 500, 0)], 1.0) is None


def test_another_programs_points_carry_no_learner_steps():
  rate = timed_runs.steady_rate([(0.5, 0, None), (1.0, 100, None), (2.0, 300, None)], 1.0)
  assert rate == {'frames_per_second': 200.0, 'seconds': 1.0}


@pytest.mark.parametrize('layout, module, config', [
    # Before the presets and launchers moved into the package ...
    ({'setup.py': "package_dir={'seed_graph.launch': 'launch'}",
      'configs/cartpole_vtrace.py': ''}, 'seed_graph.launch.local',
     'configs/cartpole_vtrace.py'),
    # ... and after.
    ({'setup.py': '', 'seed_graph/launch/local.py': '',
      'seed_graph/configs/cartpole_vtrace.py': ''}, 'seed_graph.launch.local',
     'seed_graph/configs/cartpole_vtrace.py'),
    # Before seed_graph.launch existed.
    ({'setup.py': '', 'configs/cartpole_vtrace.py': ''}, 'launch.local',
     'configs/cartpole_vtrace.py'),
])
def test_each_revision_gets_its_launcher_and_its_presets_path(tmp_path, layout, module,
                                                             config):
  for path, text in layout.items():
    (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / path).write_text(text)
  assert timed_runs.launcher_module(str(tmp_path)) == module
  assert timed_runs.config_in_tree(str(tmp_path), 'cartpole_vtrace') == config
  assert timed_runs.config_in_tree(str(tmp_path), 'mine.py') == 'mine.py'


def test_a_ctrl_c_as_the_measurement_starts_still_stops_the_program(tmp_path, monkeypatch):
  # A busy machine: the Ctrl-C lands while the output reader is being started.
  pid_file = tmp_path / 'pid'
  sleeper = ('import os, sys, time\nopen(sys.argv[1], "w").write(str(os.getpid()))\n'
             'while True: time.sleep(1)')

  def interrupted_start(thread):
    del thread
    deadline = time.monotonic() + 30
    while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline:
      time.sleep(0.05)
    raise KeyboardInterrupt

  monkeypatch.setattr(threading.Thread, 'start', interrupted_start)
  with pytest.raises(KeyboardInterrupt):
    timed_runs.run_command([sys.executable, '-c', sleeper, str(pid_file)],
                           str(tmp_path / 'out'), seconds=600, skip_seconds=0,
                           line_pattern='never', frames_per_line=1)
  monkeypatch.undo()
  assert not os.path.exists(f'/proc/{int(pid_file.read_text())}')
