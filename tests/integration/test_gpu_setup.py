"""A GPU learner's set-up on a machine without a GPU: after `bash scripts/setup_env.sh
--gpu` (scripts/test.sh runs it), the device report finds every CUDA library TensorFlow
2.8 asks for, by its soname, in the pip packages (test_one_running_program.py: a running
program's learner loads them from there, every actor and evaluator starts with all GPUs
hidden); a learner asking for a GPU the host lacks stops the program at once, in one
line. The rest of the suite runs with the libraries installed, so the CPU tests show
that nothing else changed."""

import os
import re
import subprocess
import sys

from seed_graph.launch.runs import cuda_libraries
from tests import helpers

_SET_UP = 'the CUDA libraries are not installed here: bash scripts/setup_env.sh --gpu'


def test_the_device_report_finds_every_library_by_its_soname_in_the_packages():
  folders = cuda_libraries.package_folders()
  assert folders, _SET_UP
  result = subprocess.run([sys.executable, '-m', 'seed_graph.launch.devices'],
                          cwd=helpers.REPO, capture_output=True, text=True, timeout=300,
                          check=False)
  assert result.returncode == 0, result.stderr[-3000:]
  report = result.stdout
  assert re.search(r'^tensorflow: 2\.8\.\d+, built for CUDA 11\.2', report, re.M), report
  for soname in cuda_libraries.SONAMES:
    (line,) = [l for l in report.splitlines() if l.split()[:1] == [soname]]
    path = line.split(None, 1)[1]
    assert os.path.dirname(path) in folders and os.path.basename(path) == soname, line
  assert re.search(r'^GPUs: none', report, re.M), report  # None on this machine.


def test_a_learner_asking_for_a_gpu_the_host_lacks_stops_the_program_in_one_line(tmp_path):
  result = helpers.run_launch(tmp_path / 'run', *helpers.SMALL_VTRACE_FLAGS,
                              '--config.learner.training_strategy=gpu', timeout=300)
  assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-3000:]
  failed = [l for l in result.stdout.splitlines() if l.startswith('[launcher] FAILED: ')]
  assert len(failed) == 1, result.stdout[-3000:]
  assert ("learner/0 failed as it started, before it was up: RuntimeError: "
          "learner.training_strategy='gpu' needs 1 GPU (both device counts 0: one does "
          "both); this host's TensorFlow sees 0 ") in failed[0], failed[0]
