import struct

import numpy as np
import pytest

from seed_graph.inference import wire

DTYPES = ['bool', 'uint8', 'int8', 'uint16', 'int16', 'uint32', 'int32', 'uint64', 'int64',
          'float16', 'float32', 'float64']


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', [(), (0,), (3,), (2, 84, 84), (5, 72, 96, 16)])
def test_round_trip(dtype, shape):
  rng = np.random.default_rng(0)
  array = (rng.random(shape) * 100).astype(dtype)
  arrays, meta = wire.decode(wire.encode({'x': array, 'tail': np.arange(3)}, {'eval': True}))
  assert arrays['x'].dtype == np.dtype(dtype)
  assert arrays['x'].shape == shape
  np.testing.assert_array_equal(arrays['x'], array)
  np.testing.assert_array_equal(arrays['tail'], np.arange(3))
  assert meta == {'eval': True}


def test_decoded_arrays_are_aligned_views():
  message = wire.encode({'a': np.ones(3, np.uint8), 'b': np.ones(4, np.float64)})
  arrays, _ = wire.decode(message)
  assert arrays['b'].ctypes.data % 8 == 0
  assert not arrays['b'].flags.writeable  # A view into the message, not a copy.


def test_non_contiguous_input():
  array = np.arange(24, dtype=np.int32).reshape(4, 6)[:, ::2]
  arrays, _ = wire.decode(wire.encode({'a': array}))
  np.testing.assert_array_equal(arrays['a'], array)


@pytest.mark.parametrize('message,needle', [
    (b'', 'bad magic'),
    (b'XXXX\x00\x00\x00\x00', 'bad magic'),
    (wire.MAGIC + struct.pack('<I', 1 << 30), 'header length'),
    (wire.MAGIC + struct.pack('<I', 4) + b'{{{{', 'bad header'),
])
def test_malformed_messages(message, needle):
  with pytest.raises(wire.WireFormatError, match=needle):
    wire.decode(message)


def test_truncated_buffer():
  message = wire.encode({'a': np.ones(100, np.float32)})
  with pytest.raises(wire.WireFormatError, match="array 'a'"):
    wire.decode(message[:-100])


def test_trailing_bytes():
  with pytest.raises(wire.WireFormatError, match='trailing'):
    wire.decode(wire.encode({'a': np.ones(2, np.float32)}) + b'\0' * 8)


def test_object_arrays_refused():
  with pytest.raises(wire.WireFormatError, match='cannot be sent'):
    wire.encode({'a': np.array([object()])})
