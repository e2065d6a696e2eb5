"""Fuzzing the inference edge's decoders with hypothesis (bounded: a few hundred examples
each, no deadline): whatever bytes a peer sends, `wire.decode` and the request parser
either return or raise `WireFormatError`, and never allocate more than the message holds."""

import json
import struct

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
import numpy as np
import pytest

from seed_graph.inference import messages
from seed_graph.inference import wire

FUZZ = settings(max_examples=300, deadline=None, derandomize=True)

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6),
    lambda children: (st.lists(children, max_size=4) |
                      st.dictionaries(st.text(max_size=6), children, max_size=4)),
    max_leaves=24)
_dimensions = st.integers(-3, 4) | st.integers(2**30, 2**70) | st.floats() | st.text(max_size=3)
_specs = st.lists(
    st.tuples(st.text(max_size=6) | st.integers(),
              st.sampled_from(sorted(wire.ALLOWED_DTYPES) + ['|O', 'float32', 'V8', '<U3']) |
              _json,
              st.lists(_dimensions, max_size=10) | _json).map(list) | _json,
    max_size=20)


def _message(header, body: bytes) -> bytes:
  encoded = json.dumps(header).encode()
  return wire.MAGIC + struct.pack('<I', len(encoded)) + encoded + body


def _decode_or_refuse(message: bytes):
  try:
    arrays, _ = wire.decode(message)
  except wire.WireFormatError:
    return
  for array in arrays.values():  # Views into the message: nothing beyond it.
    assert array.nbytes <= len(message)


@FUZZ
@given(st.binary(max_size=600))
def test_random_bytes_are_refused_or_decoded(data):
  _decode_or_refuse(data)
  _decode_or_refuse(wire.MAGIC + data)


@FUZZ
@given(header=st.fixed_dictionaries({'arrays': _specs, 'meta': _json}) | _json,
       body=st.binary(max_size=300))
def test_crafted_headers_are_refused_or_decoded(header, body):
  _decode_or_refuse(_message(header, body))


@FUZZ
@given(st.data())
def test_mutated_messages_are_refused_or_decoded(data):
  message = bytearray(wire.encode({'a': np.arange(6, dtype=np.float32).reshape(2, 3),
                                   'b': np.ones(5, np.uint8)}, {'eval': True}))
  for _ in range(data.draw(st.integers(1, 6))):
    position = data.draw(st.integers(0, len(message) - 1))
    message[position] = data.draw(st.integers(0, 255))
  cut = data.draw(st.integers(0, len(message)))
  _decode_or_refuse(bytes(message[:cut]) + data.draw(st.binary(max_size=16)))


@pytest.mark.parametrize('header,needle', [
    ('[' * 60_000, 'bad header'),  # Nesting deep enough to exhaust the recursion limit.
    ({'arrays': [['a', '<f4', [2**32, 2**32]]], 'meta': {}}, 'shape'),
    ({'arrays': [['a', '<f4', [2**31, 2**31, 2**31]]], 'meta': {}}, 'bytes declared'),
    ({'arrays': [['a', '<f4', [True, 2]]], 'meta': {}}, 'shape'),
    ({'arrays': [['a', '<f4', [1.5]]], 'meta': {}}, 'shape'),
    ({'arrays': [['a', '|O', [1]]], 'meta': {}}, 'not allowed'),
    ({'arrays': [['a', {'names': ['x'], 'formats': ['<f4']}, [1]]], 'meta': {}}, 'not allowed'),
    ({'arrays': [['a', '<f4', [1]]] * 17, 'meta': {}}, 'at most 16'),
    ({'arrays': [['a', '|u1', [0]], ['a', '|u1', [0]]], 'meta': {}}, 'twice'),
    ([1, 2], 'not a JSON object'),
])
def test_crafted_headers_are_named(header, needle):
  raw = header.encode() if isinstance(header, str) else json.dumps(header).encode()
  with pytest.raises(wire.WireFormatError, match=needle):
    wire.decode(wire.MAGIC + struct.pack('<I', len(raw)) + raw)


_PARSER = messages.RequestParser((3,), np.float32, num_training_envs=8, num_envs=10,
                                 max_rows=4)
_dtypes = st.sampled_from([np.int32, np.int64, np.float32, np.float64, np.bool_, np.uint8])


@FUZZ
@given(arrays=st.dictionaries(
    st.sampled_from(['env_ids', 'run_ids', 'rewards', 'dones', 'truncations',
                     'observations', 'other']),
    hnp.arrays(_dtypes, hnp.array_shapes(min_dims=0, max_dims=3, max_side=5)),
    max_size=7),
       meta=st.dictionaries(st.sampled_from(['eval', 'x']), _json, max_size=2))
def test_parser_refuses_or_accepts_any_arrays(arrays, meta):
  try:
    request = _PARSER(wire.encode(arrays, meta))
  except wire.WireFormatError:
    return
  rows = len(request.env_ids)
  assert 0 < rows <= 4 and request.observations.shape == (rows, 3)
  assert np.isfinite(request.rewards).all() and np.isfinite(request.observations).all()


@pytest.mark.parametrize('field', ['rewards', 'observations'])
@pytest.mark.parametrize('value', [np.nan, np.inf])
def test_parser_refuses_non_finite_values(field, value):
  fields = {'env_ids': np.array([0, 1], np.int32), 'run_ids': np.ones(2, np.int64),
            'rewards': np.zeros(2, np.float32), 'dones': np.zeros(2, bool),
            'truncations': np.zeros(2, bool), 'observations': np.zeros((2, 3), np.float32)}
  fields[field] = fields[field].copy()
  fields[field].flat[1] = value
  with pytest.raises(wire.WireFormatError, match=f'{field}: non-finite'):
    _PARSER(messages.encode_request(is_eval=False, **fields))


def test_largest_legal_request_fits_the_message_bound():
  rows = 4
  request = messages.encode_request(
      np.arange(rows, dtype=np.int32), np.ones(rows, np.int64), np.zeros(rows, np.float32),
      np.zeros(rows, bool), np.zeros(rows, bool), np.zeros((rows, 3), np.float32), False)
  assert len(request) <= _PARSER.max_message_bytes() < len(request) + (1 << 17)
