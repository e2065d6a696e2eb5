"""What `network.compute_dtype = 'auto'` computes the convolution torsos in, on this
machine: a rule from the CPU's flags, each branch backed by training runs measured side by
side on that CPU kind (docs/results/speed.md, "Precision by CPU kind"):

- AVX512-BF16 without AMX: bfloat16 (SEED's ResNet config: 0.107 of the environments'
  speed against float32's 0.071);
- AMX (Sapphire Rapids and later; TensorFlow 2.8's AMX kernels deadlock, so the launchers
  keep oneDNN below them): float32 (the CleanRL preset 1.43x, the fast config 1.09x
  bfloat16's frames/s);
- AVX-512 alone: float32 (the fast config about 1.9x bfloat16's);
- no AVX-512 (AVX2 alone): float32, the only choice: TensorFlow 2.8 runs bfloat16
  convolutions on a CPU through oneDNN's AVX-512 kernels only, and elsewhere its conv2d
  takes bfloat16 and returns float32 (seen on an AVX2-only AMD EPYC), so an explicit
  'bfloat16' fails there before launch, with a line saying so (`check_supported`).

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
# oneDNN's bfloat16 kernels need its 'avx512_core' level at least (AVX512F with BW, as
# every CPU with AVX512-BF16 has; Knights Landing's AVX512F alone is not enough).
_BFLOAT16_KERNEL_FLAGS = frozenset({'avx512f', 'avx512bw'})


def _cpuinfo_field(name: str, cpuinfo: str) -> Optional[str]:
  """The first CPU's value of a /proc/cpuinfo field (Linux); None where it cannot be read."""
  try:
    with open(cpuinfo) as f:
      for line in f:
        key, _, value = line.partition(':')
        if key.strip() == name:
          return value.strip()
  except OSError:
    pass
  return None


def cpu_flags(cpuinfo: str = _CPUINFO) -> FrozenSet[str]:
  """The first CPU's flags (Linux); empty where they cannot be read."""
  return frozenset((_cpuinfo_field('flags', cpuinfo) or '').split())


# The flags that tell apart the CPU kinds the rule above distinguishes, newest first.
_KIND_FLAGS = (('amx_bf16', 'AMX'), ('avx512_bf16', 'AVX512-BF16'), ('avx512f', 'AVX-512'),
               ('avx2', 'AVX2'))


def cpu_kind(cpuinfo: str = _CPUINFO) -> str:
  """This machine's CPU as the results pages name its kinds: its model, then the newest of
  the flags above it has, e.g. 'AMD EPYC 9B14 (AVX512-BF16)'; 'unknown' without cpuinfo."""
  model, flags = _cpuinfo_field('model name', cpuinfo), cpu_flags(cpuinfo)
  if model is None and not flags:
    return 'unknown'
  kind = next((name for flag, name in _KIND_FLAGS if flag in flags), 'no AVX2')
  return f'{model or "unknown model"} ({kind})'


def onednn_enabled() -> bool:
  """Whether TensorFlow in this process runs oneDNN (the launchers set this variable from
  the config's `onednn` before TensorFlow is imported)."""
  return os.environ.get('TF_ENABLE_ONEDNN_OPTS') == '1'


def sees_gpu() -> bool:
  """Whether this process's TensorFlow, if imported, has a GPU (never imports it: a
  process that has not imported TensorFlow computes nothing)."""
  tf = sys.modules.get('tensorflow')
  return bool(tf is not None and tf.config.list_physical_devices('GPU'))


def cpu_bfloat16_problem(flags: FrozenSet[str]) -> Optional[str]:
  """Why a CPU with these flags cannot compute convolutions in bfloat16 (TensorFlow 2.8
  with oneDNN); None if it can, or if the flags could not be read."""
  if flags and not _BFLOAT16_KERNEL_FLAGS <= flags:
    return ("the CPU has no AVX-512, on which alone TensorFlow 2.8's oneDNN computes "
            'bfloat16 convolutions')
  return None


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
  problem = cpu_bfloat16_problem(flags)
  if problem:
    return 'float32', problem
  if 'amx_bf16' in flags:
    return 'float32', ('an AMX CPU, whose bfloat16 kernels TensorFlow 2.8 cannot use: '
                       'float32 trained faster there')
  if 'avx512_bf16' in flags:
    return 'bfloat16', 'the CPU has AVX512-BF16: bfloat16 trained faster there'
  return 'float32', 'the CPU has no AVX512-BF16: bfloat16 trained at about half the speed'


def check_supported(network_config: ml_collections.ConfigDict, onednn: bool,
                    on_cpu: bool = True,
                    flags: Optional[FrozenSet[str]] = None) -> None:
  """Raises ValueError, one line, where the config asks for bfloat16 and this machine's
  CPU, computing the torso (`on_cpu`: not a GPU or TPU learner), cannot (TensorFlow would
  fail in the learner's first call). Unreadable flags pass: the rule cannot tell."""
  if (network_config.compute_dtype != 'bfloat16' or network_config.torso == 'mlp'
      or not on_cpu):
    return
  problem = cpu_bfloat16_problem(cpu_flags() if flags is None else flags)
  if onednn and problem:
    raise ValueError(f"network.compute_dtype='bfloat16' cannot run on this machine: "
                     f"{problem}; use 'auto' or 'float32'")


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
