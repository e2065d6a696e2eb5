"""The array wire format of the central inference edge: raw buffers, no pickle.

A message is

    b'SGW1' | uint32 little-endian header length | JSON header | buffers

The header names each array's dtype and shape (in order) and carries a small dict of
JSON scalars (`meta`). Buffers follow back to back, each starting at a multiple of 8
bytes so decoded arrays are aligned. Decoding is zero-copy (read-only views into the
message) and checks everything a peer could get wrong, raising `WireFormatError`.
"""

import json
import struct
from typing import Any, Dict, Mapping, Tuple

import numpy as np

MAGIC = b'SGW1'
_LENGTH = struct.Struct('<I')
_PREFIX_SIZE = len(MAGIC) + _LENGTH.size
_ALIGNMENT = 8
MAX_HEADER_BYTES = 1 << 16

ALLOWED_DTYPES = frozenset(
    np.dtype(name).str for name in (
        'bool', 'uint8', 'int8', 'uint16', 'int16', 'uint32', 'int32', 'uint64',
        'int64', 'float16', 'float32', 'float64'))


class WireFormatError(ValueError):
  """A message that does not follow the wire format."""


def _padding(size: int) -> int:
  return (-size) % _ALIGNMENT


def encode(arrays: Mapping[str, np.ndarray], meta: Mapping[str, Any] = None) -> bytes:
  """Serializes named arrays (and JSON-able scalars in `meta`) into one message."""
  specs = []
  buffers = []
  for name, value in arrays.items():
    array = np.asarray(value)
    if not array.flags.c_contiguous:
      array = np.ascontiguousarray(array)  # Only here: it would turn a 0-d array 1-d.
    if array.dtype.str not in ALLOWED_DTYPES:
      raise WireFormatError(f'array {name!r}: dtype {array.dtype} cannot be sent')
    specs.append([name, array.dtype.str, list(array.shape)])
    buffers.append(array)
  header = json.dumps({'arrays': specs, 'meta': dict(meta or {})},
                      separators=(',', ':')).encode()
  header += b' ' * _padding(_PREFIX_SIZE + len(header))
  parts = [MAGIC, _LENGTH.pack(len(header)), header]
  for array in buffers:
    parts.append(array.tobytes())
    parts.append(b'\0' * _padding(array.nbytes))
  return b''.join(parts)


def decode(message: bytes) -> Tuple[Dict[str, np.ndarray], Dict[str, Any]]:
  """Parses a message into (arrays, meta). Raises WireFormatError if malformed."""
  if not isinstance(message, (bytes, bytearray, memoryview)):
    raise WireFormatError(f'expected bytes, got {type(message).__name__}')
  view = memoryview(message)
  if len(view) < _PREFIX_SIZE or bytes(view[:len(MAGIC)]) != MAGIC:
    raise WireFormatError('not a seed_graph array message (bad magic)')
  (header_size,) = _LENGTH.unpack_from(view, len(MAGIC))
  if header_size > MAX_HEADER_BYTES or _PREFIX_SIZE + header_size > len(view):
    raise WireFormatError(f'header length {header_size} exceeds the message')
  try:
    header = json.loads(bytes(view[_PREFIX_SIZE:_PREFIX_SIZE + header_size]))
    specs = header['arrays']
    meta = header['meta']
    if not isinstance(specs, list) or not isinstance(meta, dict):
      raise TypeError('arrays must be a list and meta a dict')
  except (ValueError, KeyError, TypeError) as e:
    raise WireFormatError(f'bad header: {e}') from None

  offset = _PREFIX_SIZE + header_size
  arrays = {}
  for spec in specs:
    try:
      name, dtype_str, shape = spec
      dtype = np.dtype(dtype_str)
      shape = tuple(int(d) for d in shape)
    except (ValueError, TypeError) as e:
      raise WireFormatError(f'bad array spec {spec!r}: {e}') from None
    if dtype.str not in ALLOWED_DTYPES:
      raise WireFormatError(f'array {name!r}: dtype {dtype_str!r} is not allowed')
    if any(d < 0 for d in shape):
      raise WireFormatError(f'array {name!r}: negative dimension in {shape}')
    count = int(np.prod(shape, dtype=np.int64))
    nbytes = count * dtype.itemsize
    if offset + nbytes > len(view):
      raise WireFormatError(
          f'array {name!r}: {nbytes} bytes declared, {len(view) - offset} left')
    arrays[name] = np.frombuffer(view, dtype=dtype, count=count,
                                 offset=offset).reshape(shape)
    offset += nbytes + _padding(nbytes)
  if offset != len(view):
    raise WireFormatError(f'{len(view) - offset} trailing bytes after the arrays')
  return arrays, meta
