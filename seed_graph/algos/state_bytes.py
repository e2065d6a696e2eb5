"""An algorithm's trained state (its checkpoint items: networks, optimizer slots and
step) as bytes, and back: what population-based training copies from one learner into
another. Bytes, because Courier cannot take NumPy arrays from a client (dm-launchpad
0.5.2: the server hangs deserializing them); the format is a TensorFlow checkpoint's
files."""

import os
import tempfile
from typing import Any, Dict

import tensorflow as tf

_PREFIX = 'state'


def to_bytes(items: Dict[str, Any]) -> Dict[str, bytes]:
  """{checkpoint file suffix: contents} of `items` (name -> trackable)."""
  with tempfile.TemporaryDirectory() as directory:
    tf.train.Checkpoint(**items).write(os.path.join(directory, _PREFIX))
    files = {}
    for name in os.listdir(directory):
      with open(os.path.join(directory, name), 'rb') as f:
        files[name[len(_PREFIX):]] = f.read()
  return files


def load_bytes(items: Dict[str, Any], files: Dict[str, bytes]) -> None:
  """Loads what `to_bytes` gave into `items`, which must have the same structure: a
  state of another network fails with ValueError, one line, and changes nothing it can
  detect beforehand."""
  if not isinstance(files, dict) or not all(
      isinstance(k, str) and isinstance(v, bytes) for k, v in files.items()):
    raise ValueError('state: expected {file suffix: bytes} as to_bytes gives')
  with tempfile.TemporaryDirectory() as directory:
    for suffix, contents in files.items():
      if os.sep in suffix or suffix.startswith('.' + os.sep):
        raise ValueError(f'state: bad file suffix {suffix!r}')
      with open(os.path.join(directory, _PREFIX + suffix), 'wb') as f:
        f.write(contents)
    prefix = os.path.join(directory, _PREFIX)
    try:
      shapes = tf.train.load_checkpoint(prefix).get_variable_to_shape_map()
    except (tf.errors.OpError, ValueError) as error:
      raise ValueError(f'state: not a readable checkpoint ({type(error).__name__})')
    _check_shapes(items, shapes)
    status = tf.train.Checkpoint(**items).read(prefix)
    status.assert_existing_objects_matched()


def _check_shapes(items: Dict[str, Any], shapes: Dict[str, list]) -> None:
  """Every variable of `items` that the state holds has its shape there."""
  with tempfile.TemporaryDirectory() as directory:
    own = tf.train.load_checkpoint(tf.train.Checkpoint(**items).write(
        os.path.join(directory, 'own'))).get_variable_to_shape_map()
  for name, shape in own.items():
    if name in shapes and list(shapes[name]) != list(shape):
      raise ValueError(f'state: {name} has shape {shapes[name]} there, {shape} here')
  missing = sorted(n for n in own if n not in shapes and 'OPTIMIZER_SLOT' not in n)
  if missing:
    raise ValueError(f'state: lacks {len(missing)} of this learner\'s variables, e.g. '
                     f'{missing[0]}')
