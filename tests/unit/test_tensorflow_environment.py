"""What the launchers set for TensorFlow in their nodes' environment
(`seed_graph.launch.runs.tensorflow_environment`): oneDNN as the config says, and on CPUs
with AMX, bfloat16 training that does not deadlock."""

import os
import subprocess
import sys

from seed_graph.algos import precision
from seed_graph.launch.runs import tensorflow_environment


def test_onednn_off_leaves_the_instruction_set_alone(monkeypatch):
  monkeypatch.delenv(tensorflow_environment.MAX_ISA_VARIABLE, raising=False)
  tensorflow_environment.set_for_nodes(False)
  assert os.environ['TF_ENABLE_ONEDNN_OPTS'] == '0'
  assert tensorflow_environment.MAX_ISA_VARIABLE not in os.environ


def test_onednn_on_caps_the_instruction_set_unless_the_user_chose_one(monkeypatch):
  monkeypatch.delenv(tensorflow_environment.MAX_ISA_VARIABLE, raising=False)
  tensorflow_environment.set_for_nodes(True)
  assert os.environ['TF_ENABLE_ONEDNN_OPTS'] == '1'
  assert os.environ[tensorflow_environment.MAX_ISA_VARIABLE] == 'AVX512_CORE_BF16'
  monkeypatch.setenv(tensorflow_environment.MAX_ISA_VARIABLE, 'AVX2')
  tensorflow_environment.set_for_nodes(True)
  assert os.environ[tensorflow_environment.MAX_ISA_VARIABLE] == 'AVX2'


def test_a_benchmark_runs_again_only_if_its_environment_lacks_the_launchers_variables(
    monkeypatch):
  runs = []
  monkeypatch.setattr(os, 'execv', lambda path, argv: runs.append(argv))
  monkeypatch.setattr(sys, 'argv', ['training_step.py', '--batches=2'])
  monkeypatch.setenv('TF_ENABLE_ONEDNN_OPTS', '1')
  monkeypatch.setenv(tensorflow_environment.MAX_ISA_VARIABLE, 'AVX512_CORE_AMX')
  tensorflow_environment.run_again_with(True, 'benchmarks.training_step')
  assert not runs  # The user's instruction set is kept.
  monkeypatch.delenv(tensorflow_environment.MAX_ISA_VARIABLE)
  tensorflow_environment.run_again_with(True, 'benchmarks.training_step')
  assert runs == [[sys.executable, '-m', 'benchmarks.training_step', '--batches=2']]
  assert os.environ[tensorflow_environment.MAX_ISA_VARIABLE] == 'AVX512_CORE_BF16'


# Two training steps of the Atari torso in bfloat16, in a child process that imports
# TensorFlow with the launchers' variables and oneDNN's log of every primitive it runs.
# On an AMX CPU, with nothing set, the convolutions run `jit:avx512_core_amx_bf16`
# kernels, whose backward pass deadlocked the learner within a few training steps.
_BFLOAT16_TRAINING = """
import numpy as np, tensorflow as tf
from seed_graph.algos import networks
frames = tf.constant(np.random.default_rng(0).integers(0, 255, (32, 84, 84, 4)), tf.uint8)
torso = networks.AtariTorso(hidden_size=512, compute_dtype='bfloat16')
for _ in range(2):
  with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(torso(frames)))
  tape.gradient(loss, torso.trainable_variables)
print('ok')
"""


def test_bfloat16_convolution_training_runs_no_amx_kernel():
  environment = {k: v for k, v in os.environ.items()
                 if k != tensorflow_environment.MAX_ISA_VARIABLE}
  environment.update(tensorflow_environment.variables(True), ONEDNN_VERBOSE='1')
  result = subprocess.run([sys.executable, '-c', _BFLOAT16_TRAINING], capture_output=True,
                          text=True, timeout=240, env=environment)
  if precision.cpu_bfloat16_problem(precision.cpu_flags()):
    # No AVX-512, so no AMX either: TensorFlow trains nothing in bfloat16 here, and
    # launch.local refuses an explicit bfloat16 before launch.
    assert 'oneDNN BFloat16 support are only on platforms with AVX512' in result.stderr
    assert result.returncode != 0
    return
  assert result.stdout.rstrip().endswith('ok'), result.stderr[-3000:]
  # onednn_verbose,exec,cpu,<primitive>,<implementation>,<direction>,... (a CPU without
  # AVX512-BF16 may run no oneDNN convolution at all: nothing to check there.)
  executed = {tuple(line.split(',')[3:6]) for line in result.stdout.splitlines()
              if ',exec,' in line}
  assert not any('amx' in implementation for _, implementation, _ in executed), executed
