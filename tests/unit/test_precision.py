"""`network.compute_dtype='auto'`: the rule that picks the torso's precision from the
CPU's flags, an explicit choice obeyed, and checkpoints that do not depend on it."""

import ml_collections
import numpy as np
import pytest
import tensorflow as tf

from seed_graph.algos import networks
from seed_graph.algos import precision

_AVX512 = frozenset({'avx512f', 'avx512bw'})
_AVX2 = frozenset({'avx', 'avx2', 'fma'})


@pytest.mark.parametrize('torso, onednn, flags, gpu, dtype', [
    ('atari', True, _AVX512 | {'avx512_bf16'}, False, 'bfloat16'),  # Cooper Lake, Zen 4.
    ('resnet', True, _AVX512 | {'avx512_bf16'}, False, 'bfloat16'),
    ('atari', True, _AVX512, False, 'float32'),              # Cascade Lake, Ice Lake.
    ('atari', True, _AVX512 | {'avx512_bf16', 'amx_bf16'}, False, 'float32'),  # SPR.
    ('atari', False, _AVX512 | {'avx512_bf16'}, False, 'float32'),  # No oneDNN.
    ('mlp', True, _AVX512 | {'avx512_bf16'}, False, 'float32'),
    ('atari', True, frozenset(), False, 'float32'),          # Flags unreadable.
    ('atari', True, _AVX2, False, 'float32'),                # Zen 2, Zen 3: no AVX-512.
    ('atari', True, _AVX512 | {'avx512_bf16'}, True, 'float32'),  # A GPU learner.
])
def test_auto_picks_bfloat16_only_where_it_trained_faster(torso, onednn, flags, gpu, dtype):
  chosen, why = precision.choose(torso, onednn, flags, gpu)
  assert chosen == dtype and why


def _network(dtype, torso='atari'):
  return ml_collections.ConfigDict({
      'torso': torso, 'compute_dtype': dtype, 'torso_hidden_size': 16, 'mlp_sizes': (8,),
      'center_frames': False, 'initialization': 'fan_in', 'lstm_size': 0})


def test_an_explicit_precision_is_obeyed_and_auto_says_what_it_chose():
  fast = _AVX512 | {'avx512_bf16'}
  assert precision.resolve(_network('float32'), True, fast) == ('float32',
                                                                'set in the config')
  assert precision.resolve(_network('bfloat16'), False, _AVX512)[0] == 'bfloat16'
  assert precision.resolve(_network('auto'), True, fast)[0] == 'bfloat16'
  assert precision.describe(_network('float32'), True) is None
  line = precision.describe(_network('auto'), False)
  assert line.startswith("network.compute_dtype='auto' computes in float32 on this "
                         'machine: ')


def test_explicit_bfloat16_is_refused_only_where_the_cpu_cannot_compute_it():
  with pytest.raises(ValueError, match="compute_dtype='bfloat16' cannot run on this "
                     'machine: the CPU has no AVX-512'):
    precision.check_supported(_network('bfloat16'), True, flags=_AVX2)
  precision.check_supported(_network('bfloat16'), True, flags=_AVX512)  # Emulated there.
  precision.check_supported(_network('bfloat16'), True, flags=frozenset())  # Unknown.
  precision.check_supported(_network('bfloat16'), True, on_cpu=False, flags=_AVX2)  # GPU.
  for dtype in ('float32', 'auto'):
    precision.check_supported(_network(dtype), True, flags=_AVX2)


def test_cpu_flags_are_read_from_cpuinfo(tmp_path):
  cpuinfo = tmp_path / 'cpuinfo'
  cpuinfo.write_text('processor\t: 0\nflags\t\t: fpu avx512f avx512_bf16\n\n'
                     'processor\t: 1\nflags\t\t: fpu avx512f avx512_bf16\n')
  assert precision.cpu_flags(str(cpuinfo)) == {'fpu', 'avx512f', 'avx512_bf16'}
  assert precision.cpu_flags(str(tmp_path / 'absent')) == frozenset()


def test_the_cpu_kind_is_the_model_and_the_newest_flag_the_precision_rule_tells_apart(
    tmp_path):
  cpuinfo = tmp_path / 'cpuinfo'
  kinds = {}
  for flags in ('fpu avx2', 'avx2 avx512f', 'avx2 avx512f avx512_bf16',
                'avx2 avx512f avx512_bf16 amx_bf16', 'fpu sse4_2'):
    cpuinfo.write_text(f'processor\t: 0\nmodel name\t: AMD EPYC 9B14\nflags\t\t: {flags}\n')
    kinds[flags] = precision.cpu_kind(str(cpuinfo))
  assert list(kinds.values()) == ['AMD EPYC 9B14 (AVX2)', 'AMD EPYC 9B14 (AVX-512)',
                                  'AMD EPYC 9B14 (AVX512-BF16)', 'AMD EPYC 9B14 (AMX)',
                                  'AMD EPYC 9B14 (no AVX2)']
  assert precision.cpu_kind(str(tmp_path / 'absent')) == 'unknown'


def test_a_checkpoint_of_one_precision_restores_into_the_other(tmp_path):
  frames = np.random.default_rng(0).integers(0, 255, (2, 84, 84, 4), np.uint8)
  written = networks.make_torso(_network('float32'))
  written(frames)
  path = tf.train.Checkpoint(torso=written).save(str(tmp_path / 'ckpt'))
  read = networks.make_torso(_network('bfloat16'))
  # Tracing creates its variables without running a bfloat16 kernel (which needs oneDNN,
  # off in this process).
  tf.function(read).get_concrete_function(tf.TensorSpec(frames.shape, tf.uint8))
  tf.train.Checkpoint(torso=read).restore(path).assert_consumed()
  assert [v.dtype for v in read.variables] == [tf.float32] * len(written.variables)
  for mine, theirs in zip(read.variables, written.variables):
    np.testing.assert_array_equal(mine.numpy(), theirs.numpy())
