"""The environment variables a launcher sets for TensorFlow before its nodes import it.

`set_for_nodes(onednn)` sets `variables(onednn)` in this process, keeping a value the
user set; the node processes it starts inherit them (under `local_mt` the nodes share this
process's TensorFlow, which must not have been imported yet). A benchmark that times
TensorFlow in its own process after reading a config calls `run_again_with(onednn,
module)`, so that it measures what the launchers' nodes run.

- `TF_ENABLE_ONEDNN_OPTS`: the config's `onednn` key (TensorFlow 2.8 leaves oneDNN off
  on Linux unless it is 1).
- `ONEDNN_MAX_CPU_ISA=AVX512_CORE_BF16` with oneDNN on, unless already set: on CPUs
  with AMX (Intel Sapphire Rapids and later) TensorFlow 2.8's oneDNN picks its AMX
  kernel for the backward pass of bfloat16 convolutions, whose thread barrier
  deadlocks under TensorFlow's thread pool: the learner stops for good after a few
  training steps (seen with `network.compute_dtype=bfloat16` on the Atari configs, and
  in a bare Keras loop of Nature-CNN bfloat16 training steps). Capping the instruction
  set one step below AMX keeps oneDNN's AVX-512 bfloat16 kernels and leaves CPUs without
  AMX as they were.
"""

import os
import sys
from typing import Dict

MAX_ISA_VARIABLE = 'ONEDNN_MAX_CPU_ISA'
MAX_ISA_BELOW_AMX = 'AVX512_CORE_BF16'


def variables(onednn: bool) -> Dict[str, str]:
  """What a process that imports TensorFlow after reading them needs (see above)."""
  if not onednn:
    return {'TF_ENABLE_ONEDNN_OPTS': '0'}
  return {'TF_ENABLE_ONEDNN_OPTS': '1', MAX_ISA_VARIABLE: MAX_ISA_BELOW_AMX}


def set_for_nodes(onednn: bool) -> None:
  """Sets `variables(onednn)` here; an `ONEDNN_MAX_CPU_ISA` already set is kept."""
  for name, value in variables(onednn).items():
    if name == MAX_ISA_VARIABLE:
      os.environ.setdefault(name, value)
    else:
      os.environ[name] = value


def run_again_with(onednn: bool, module: str) -> None:
  """Runs `python -m module` again with this process's arguments if its environment
  lacks what `set_for_nodes(onednn)` would set (TensorFlow reads it when it loads, and a
  config may have loaded it); returns if nothing is missing."""
  before = dict(os.environ)
  set_for_nodes(onednn)
  if dict(os.environ) != before:
    sys.stdout.flush()
    os.execv(sys.executable, [sys.executable, '-m', module] + sys.argv[1:])
