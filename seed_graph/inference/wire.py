"""The array wire format of the central inference edge: raw buffers, no pickle.

A message is

    b'SGW1' | uint32 little-endian header length | JSON header | buffers

The header names each array's dtype and shape (in order) and carries a small dict of
JSON scalars (`meta`). Buffers follow back to back, each starting at a multiple of 8
bytes so decoded arrays are aligned. Decoding is zero-copy (read-only views into the
message) and checks everything a peer could get wrong, raising `WireFormatError`.
"""

import json
import math
import struct
from typing import Any, Dict, Mapping, Tuple

import numpy as np

MAGIC = b'SGW1'
_LENGTH = struct.Struct('<I')
_PREFIX_SIZE = len(MAGIC) + _LENGTH.size
_ALIGNMENT = 8
MAX_HEADER_BYTES = 1 << 16
MAX_ARRAYS = 16
MAX_NAME_LENGTH = 64
MAX_RANK = 8
MAX_DIMENSION = 1 << 31

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
  """Parses a message into (arrays, meta). Raises WireFormatError if malformed.

  Everything a peer declares is bounded before anything is allocated: the header's size
  and nesting, the number of arrays, each array's rank and dimensions, and each array's
  bytes against what the message holds.
  """
  if not isinstance(message, (bytes, bytearray, memoryview)):
    raise WireFormatError(f'expected bytes, got {type(message).__name__}')
  view = memoryview(message)
  if len(view) < _PREFIX_SIZE or bytes(view[:len(MAGIC)]) != MAGIC:
    raise WireFormatError('not a seed_graph array message (bad magic)')
  (header_size,) = _LENGTH.unpack_from(view, len(MAGIC))
  if header_size > MAX_HEADER_BYTES or _PREFIX_SIZE + header_size > len(view):
    raise WireFormatError(f'header length {header_size} exceeds the message')
  specs, meta = _parse_header(bytes(view[_PREFIX_SIZE:_PREFIX_SIZE + header_size]))

  offset = _PREFIX_SIZE + header_size
  arrays = {}
  for spec in specs:
    name, dtype, shape = _array_spec(spec)
    if name in arrays:
      raise WireFormatError(f'array {name!r} appears twice')
    count = math.prod(shape)  # Python ints: cannot overflow.
    nbytes = count * dtype.itemsize
    if nbytes > len(view) - offset:
      raise WireFormatError(
          f'array {name!r}: {nbytes} bytes declared, {len(view) - offset} left')
    arrays[name] = np.frombuffer(view, dtype=dtype, count=count,
                                 offset=offset).reshape(shape)
    offset += nbytes + _padding(nbytes)
  if offset != len(view):
    raise WireFormatError(f'{len(view) - offset} trailing bytes after the arrays')
  return arrays, meta


def message_size_bound(array_bytes) -> int:
  """The largest message carrying arrays of these sizes (in bytes)."""
  return (_PREFIX_SIZE + MAX_HEADER_BYTES +
          sum(nbytes + _ALIGNMENT for nbytes in array_bytes))


def _short(value) -> str:
  text = repr(value)
  return text if len(text) <= 80 else text[:77] + '...'


def _parse_header(raw: bytes):
  try:
    header = json.loads(raw)
  except (ValueError, RecursionError) as e:  # RecursionError: nesting too deep.
    raise WireFormatError(f'bad header: {_short(str(e))}') from None
  if not isinstance(header, dict):
    raise WireFormatError('bad header: not a JSON object')
  specs, meta = header.get('arrays'), header.get('meta')
  if not isinstance(specs, list) or not isinstance(meta, dict):
    raise WireFormatError('bad header: arrays must be a list and meta a dict')
  if len(specs) > MAX_ARRAYS:
    raise WireFormatError(f'bad header: {len(specs)} arrays, at most {MAX_ARRAYS}')
  return specs, meta


def _array_spec(spec):
  """(name, dtype, shape) of one header entry, each checked."""
  if not isinstance(spec, list) or len(spec) != 3:
    raise WireFormatError(f'bad array spec {_short(spec)}: expected [name, dtype, shape]')
  name, dtype_str, shape = spec
  if not isinstance(name, str) or len(name) > MAX_NAME_LENGTH:
    raise WireFormatError(f'bad array spec {_short(spec)}: the name must be a string of at '
                          f'most {MAX_NAME_LENGTH} characters')
  if not isinstance(dtype_str, str) or dtype_str not in ALLOWED_DTYPES:
    raise WireFormatError(f'array {name!r}: dtype {_short(dtype_str)} is not allowed')
  if (not isinstance(shape, list) or len(shape) > MAX_RANK or
      # pylint: disable-next=unidiomatic-typecheck
      not all(type(d) is int and 0 <= d <= MAX_DIMENSION for d in shape)):
    raise WireFormatError(f'array {name!r}: shape {_short(shape)} is not a list of at '
                          f'most {MAX_RANK} integers in [0, {MAX_DIMENSION}]')
  return name, np.dtype(dtype_str), tuple(shape)
