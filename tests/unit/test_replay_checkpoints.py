"""The replay node starts from its newest intact checkpoint: a damaged one is moved aside
and reported by name, and with none intact (Reverb keeps one) the replay starts empty."""

import glob
import os

import numpy as np
import portpicker
import reverb

from seed_graph.nodes import replay


def _tables():
  return [reverb.Table('t', reverb.selectors.Uniform(), reverb.selectors.Fifo(), 100,
                       reverb.rate_limiters.MinSize(1))]


def _size(server) -> int:
  return server.localhost_client().server_info()['t'].current_size


def _damage(checkpoint):
  """Zeros over the second half of the chunks file, as a write cut short by a full disk
  or a crash can leave it. (Cutting the file short is not always damage Reverb sees:
  its compressed reader may take a cut at some points for the end of the file, and load
  what is before it.)"""
  path = os.path.join(checkpoint, 'chunks.tfrecord')
  size = os.path.getsize(path)
  with open(path, 'r+b') as f:
    f.seek(size // 2)
    f.write(bytes(size - size // 2))


def test_a_damaged_replay_checkpoint_is_moved_aside_and_the_replay_starts_empty(tmp_path):
  directory = str(tmp_path / 'replay')
  server = replay.start_server(_tables, portpicker.pick_unused_port(), directory)
  client = server.localhost_client()
  for item in range(10):
    client.insert(np.full(1000, item, np.float32), {'t': 1.0})
  client.checkpoint()
  server.stop()
  server = replay.start_server(_tables, portpicker.pick_unused_port(), directory)
  assert _size(server) == 10  # An intact checkpoint loads.
  server.stop()
  # Reverb keeps its newest checkpoint only.
  (checkpoint,) = glob.glob(os.path.join(directory, '*'))

  _damage(checkpoint)
  server = replay.start_server(_tables, portpicker.pick_unused_port(), directory)
  assert _size(server) == 0
  server.stop()
  assert not glob.glob(os.path.join(directory, '*'))
  assert glob.glob(os.path.join(directory + replay.DAMAGED_SUFFIX, '*')) == [
      os.path.join(directory + replay.DAMAGED_SUFFIX, os.path.basename(checkpoint))]
