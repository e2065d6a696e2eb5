"""A run packed for git to carry resumes elsewhere from its newest checkpoint, optimizer
state and counters included; unpacking never discards a logdir (`benchmarks.carried_runs`)."""

import io
import json
import os
import tarfile

import numpy as np
import pytest
import tensorflow as tf

from benchmarks import carried_runs
from seed_graph.nodes.learner import checkpoints


def _learner_checkpoints(logdir):
  """A learner's checkpoints of a variable and its Adam optimizer (slots made by a step)."""
  weights = tf.Variable(np.zeros(3, np.float32))
  optimizer = tf.keras.optimizers.Adam(0.1)
  saved = checkpoints.LearnerCheckpoints(str(logdir), {'weights': weights,
                                                       'optimizer': optimizer})
  return saved, weights, optimizer


def _run(logdir, saves=3):
  """A logdir as a run leaves it: `saves` checkpoints after a training step each, its
  records, and the logs that are not carried; the weights' last values."""
  saved, weights, optimizer = _learner_checkpoints(logdir)
  for step in range(saves):
    optimizer.apply_gradients([(tf.constant([1.0, -2.0, 3.0 + step]), weights)])
    saved.learner_steps.assign_add(1)
    saved._manager.save()  # pylint: disable=protected-access
  for name, text in (('suite.json', '{"game": "Pong"}'), ('config.json', '{}'),
                     ('metrics.jsonl', '{"frames": 300}\n'), ('logs/learner_0.log', 'x'),
                     ('checkpoints/episode_returns.json', '{"window": [1.0]}')):
    os.makedirs(os.path.dirname(os.path.join(logdir, name)), exist_ok=True)
    with open(os.path.join(logdir, name), 'w') as f:
      f.write(text)
  return weights.numpy(), _slots(optimizer)


def _slots(optimizer):
  """The optimizer's variables by name ('iter', 'm', 'v')."""
  return {v.name.split('/')[-1].split(':')[0]: v.numpy() for v in optimizer.variables()}


def test_a_packed_run_resumes_elsewhere_from_its_newest_checkpoint(tmp_path):
  weights, optimizer_state = _run(tmp_path / 'run')
  path = str(tmp_path / 'carried' / 'Pong' / 'seed0.tar.xz')
  assert carried_runs.pack(str(tmp_path / 'run'), path, 300)
  assert carried_runs.manifest(path)['checkpoint'] == 'ckpt-3'

  clone = tmp_path / 'clone' / 'Pong' / 'seed0'
  said = carried_runs.unpack(path, str(clone), 0)
  assert said.startswith(f'unpacked {path} (300 frames, ckpt-3, packed ')
  assert sorted(os.listdir(clone / 'checkpoints')) == [
      'checkpoint', 'ckpt-3.data-00000-of-00001', 'ckpt-3.index', 'episode_returns.json']
  assert not (clone / 'logs').exists() and (clone / 'metrics.jsonl').exists()
  resumed, resumed_weights, resumed_optimizer = _learner_checkpoints(clone)
  assert resumed.resumed_from.endswith('ckpt-3') and resumed.learner_steps.numpy() == 3
  np.testing.assert_array_equal(resumed_weights.numpy(), weights)
  # The optimizer's slots are restored as they are made, at its first step.
  resumed_optimizer.apply_gradients([(tf.zeros(3), resumed_weights)])
  assert resumed_optimizer.iterations.numpy() == 4  # Its step count went on.
  now = _slots(resumed_optimizer)
  np.testing.assert_allclose(now['m'], optimizer_state['m'] * 0.9, rtol=1e-6)  # beta_1
  np.testing.assert_allclose(now['v'], optimizer_state['v'] * 0.999, rtol=1e-6)  # beta_2
  assert checkpoints.read_episode_returns(str(clone / 'checkpoints')) == {'window': [1.0]}


def test_unpacking_keeps_a_logdir_as_far_along_and_moves_one_behind_aside(tmp_path):
  _run(tmp_path / 'run')
  path = str(tmp_path / 'seed0.tar.xz')
  carried_runs.pack(str(tmp_path / 'run'), path, 300)
  assert carried_runs.unpack(path, str(tmp_path / 'run'), 300) is None
  assert len(os.listdir(tmp_path)) == 2  # Nothing moved, nothing unpacked.

  _run(tmp_path / 'behind', saves=1)
  said = carried_runs.unpack(path, str(tmp_path / 'behind'), 100)
  (aside,) = [name for name in os.listdir(tmp_path) if name.startswith('.behind.')]
  assert said.endswith(f'(100 frames there moved to {tmp_path / aside})')
  assert os.path.exists(tmp_path / aside / 'checkpoints' / 'ckpt-1.index')
  assert os.path.exists(tmp_path / 'behind' / 'checkpoints' / 'ckpt-3.index')


def test_the_same_checkpoint_is_not_packed_again(tmp_path):
  _run(tmp_path / 'run')
  path = str(tmp_path / 'seed0.tar.xz')
  assert carried_runs.pack(str(tmp_path / 'run'), path, 300)
  written = os.stat(path).st_mtime_ns
  assert not carried_runs.pack(str(tmp_path / 'run'), path, 300)
  assert os.stat(path).st_mtime_ns == written
  assert not carried_runs.pack(str(tmp_path / 'nothing'), str(tmp_path / 'x.tar.xz'), 0)


def test_a_file_that_is_not_a_carried_run_is_refused_by_name(tmp_path):
  path = str(tmp_path / 'seed0.tar.xz')
  for members in ([('suite.json', b'{}')],
                  [(carried_runs.MANIFEST, json.dumps({'frames': 9, 'checkpoint': 'ckpt-1',
                                                       'packed': 'now'}).encode()),
                   ('../outside', b'x')]):
    with tarfile.open(path, 'w:xz') as archive:
      for name, data in members:
        info = tarfile.TarInfo(name)
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    with pytest.raises(ValueError, match=f'^{path}: '):
      carried_runs.unpack(path, str(tmp_path / 'run'), 0)
  assert not os.path.exists(tmp_path / 'run') and not os.path.exists(tmp_path / '.outside')
