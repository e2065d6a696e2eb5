"""What `network.compute_dtype = 'auto'` computes the convolution torsos in, on this
machine: a rule from the CPU's flags, each branch backed by training runs measured side by
side on that CPU kind (docs/results/speed.md, "Precision by CPU kind"):

- AVX512-BF16 without AMX: bfloat16 (SEED's ResNet config: 0.107 of the environments'
  speed against float32's 0.071);
- AMX (Sapphire Rapids and later; TensorFlow 2.8's AMX kernels deadlock, so the launchers
  keep oneDNN below them): float32 (the CleanRL preset 1.43x, the fast config 1.09x
  bfloat16's frames/s);
- neither (AVX-512 or AVX2 alone): float32 (the fast config about 1.9x bfloat16's).

A process whose TensorFlow sees a GPU (a learner with `learner.training_strategy='gpu'`,
docs/devices.md) computes in float32: no precision has been measured on a GPU here.
bfloat16 also needs oneDNN in the process (without it TensorFlow 2.8's CPU convolutions
return float32) and a convolution torso (the MLP computes in float32). An explicit
'float32' or 'bfloat16' is obeyed. Variables are float32 either way, so checkpoints do
not depend on the choice.
"""

import os
import sys
from typing import FrozenSet, Optional, Tuple
import ml_collections

AUTO = 'auto'
_CPUINFO = '/proc/cpuinfo'


def cpu_flags(cpuinfo: str = _CPUINFO) -> FrozenSet[str]:
  """The first CPU's flags (Linux); empty where they cannot be read."""
  try:
    with open(cpuinfo) as f:
      for line in f:
        if line.startswith('flags'):
          return frozenset(line.split(':', 1)[1].split())
  except OSError:
    pass
  return frozenset()


def onednn_enabled() -> bool:
  """Whether TensorFlow in this process runs oneDNN (the launchers set this variable from
  the config's `onednn` before TensorFlow is imported)."""
  return os.environ.get('TF_ENABLE_ONEDNN_OPTS') == '1'


def sees_gpu() -> bool:
  """Whether this process's TensorFlow, if imported, has a GPU (never imports it: a
  process that has not imported TensorFlow computes nothing)."""
  tf = sys.modules.get('tensorflow')
  return bool(tf is not None and tf.config.list_physical_devices('GPU'))


def choose(torso: str, onednn: bool, flags: FrozenSet[str],
           gpu: bool = False) -> Tuple[str, str]:
  """(the dtype 'auto' stands for, why) for a torso, oneDNN on or off, CPU flags, and
  whether the work runs on a GPU."""
  if torso == 'mlp':
    return 'float32', "the 'mlp' torso computes in float32"
  if gpu:
    return 'float32', 'a GPU, where no precision has been measured here'
  if not onednn:
    return 'float32', 'bfloat16 convolutions need oneDNN (onednn=False)'
  if 'amx_bf16' in flags:
    return 'float32', ('an AMX CPU, whose bfloat16 kernels TensorFlow 2.8 cannot use: '
                       'float32 trained faster there')
  if 'avx512_bf16' in flags:
    return 'bfloat16', 'the CPU has AVX512-BF16: bfloat16 trained faster there'
  return 'float32', 'the CPU has no AVX512-BF16: bfloat16 trained at about half the speed'


def describe(network_config: ml_collections.ConfigDict, onednn: bool) -> Optional[str]:
  """A line saying what 'auto' chooses on this machine and why; None if not 'auto'."""
  if network_config.compute_dtype != AUTO:
    return None
  dtype, why = resolve(network_config, onednn)
  return f"network.compute_dtype='auto' computes in {dtype} on this machine: {why}"


def resolve(network_config: ml_collections.ConfigDict, onednn: Optional[bool] = None,
            flags: Optional[FrozenSet[str]] = None) -> Tuple[str, str]:
  """(`network_config.compute_dtype` as this process computes it, why)."""
  if network_config.compute_dtype != AUTO:
    return network_config.compute_dtype, 'set in the config'
  return choose(network_config.torso, onednn_enabled() if onednn is None else onednn,
                cpu_flags() if flags is None else flags, sees_gpu())
