"""A damaged newest checkpoint is reported by name and the one before it is used."""

import glob
import os

import numpy as np

from seed_graph.nodes.learner import checkpoints
from seed_graph.algos.vtrace import learning as vtrace_learner
from seed_graph.inference import messages
from seed_graph.nodes.learner import shell as learner_lib
from tests import helpers


def _act(learner, steps):
  """`steps` inference steps of 4 training environments (4 frames each)."""
  rng = np.random.default_rng(0)
  env_ids = np.arange(4, dtype=np.int32)
  for _ in range(steps):
    learner.infer_batch([messages.InferenceRequest(
        env_ids, np.full(4, 3, np.int64), np.zeros(4, np.float32), np.zeros(4, bool),
        np.zeros(4, bool), rng.normal(size=(4, 4)).astype(np.float32), False,
        np.zeros(4, bool))])


def _truncate_data_files(checkpoint_path):
  for path in glob.glob(checkpoint_path + '.data-*'):
    size = os.path.getsize(path)
    with open(path, 'r+b') as f:
      f.truncate(size // 2)


def test_a_damaged_newest_checkpoint_falls_back_to_the_one_before(tmp_path):
  config = helpers.small_cartpole_config(tmp_path, **{'learner.queue_capacity': 1000})
  learner = learner_lib.Learner(config, vtrace_learner.VTrace)
  _act(learner, 3)
  older = learner.save()
  _act(learner, 5)
  newest = learner.save()
  assert learner.get_stats()['frames'] == 32
  assert checkpoints.damage(newest) is None
  _truncate_data_files(newest)
  assert 'DataLoss' in checkpoints.damage(newest) or 'Read less' in checkpoints.damage(newest)

  resumed = learner_lib.Learner(config, vtrace_learner.VTrace)
  assert resumed.resumed_from == older
  assert resumed.get_stats()['frames'] == 12  # What the older checkpoint holds.
  (line,) = resumed.damaged_checkpoints
  assert line.startswith(f'checkpoint {newest} is damaged (')


def test_every_checkpoint_damaged_starts_afresh(tmp_path):
  config = helpers.small_cartpole_config(tmp_path)
  learner = learner_lib.Learner(config, vtrace_learner.VTrace)
  only = learner.save()
  _truncate_data_files(only)
  fresh = learner_lib.Learner(config, vtrace_learner.VTrace)
  assert fresh.resumed_from is None and len(fresh.damaged_checkpoints) == 1
  assert fresh.get_stats()['frames'] == 0


def test_a_resumed_learner_goes_on_with_its_recent_episode_returns(tmp_path):
  config = helpers.small_cartpole_config(tmp_path, **{'learner.queue_capacity': 1000})
  learner = learner_lib.Learner(config, vtrace_learner.VTrace)
  env_ids = np.arange(4, dtype=np.int32)
  for step in range(4):  # Every environment ends an episode of return 3 at step 3.
    ended = np.full(4, step == 3)
    learner.infer_batch([messages.InferenceRequest(
        env_ids, np.full(4, 3, np.int64), np.full(4, 0.0 if step == 0 else 1.0, np.float32),
        ended, np.zeros(4, bool), np.zeros((4, 4), np.float32), False, ended)])
  stats = learner.get_stats()
  assert stats['episode_return'] == 3.0 and stats['train_episodes'] == 4
  learner.save()
  resumed = learner_lib.Learner(config, vtrace_learner.VTrace).get_stats()
  assert resumed['episode_return'] == 3.0 and resumed['train_episodes'] == 4


def test_games_in_flight_at_the_last_save_go_on_in_the_next_learner_only(tmp_path):
  config = helpers.small_cartpole_config(tmp_path, **{'learner.queue_capacity': 1000})
  env_ids = np.arange(4, dtype=np.int32)

  def step(learner, reward, ended):
    learner.infer_batch([messages.InferenceRequest(
        env_ids, np.full(4, 3, np.int64), np.full(4, reward, np.float32),
        np.full(4, ended), np.zeros(4, bool), np.zeros((4, 4), np.float32), False,
        np.full(4, ended))])

  learner = learner_lib.Learner(config, vtrace_learner.VTrace)
  for reward in (0.0, 1.0, 1.0):  # Actor run 3's first step, then 2 points a game.
    step(learner, reward, False)
  learner.save(in_flight=True)  # As `_finish` does with inference stopped.
  restarted = learner_lib.Learner(config, vtrace_learner.VTrace)
  step(restarted, 1.0, True)  # The same actor run's next step ends each game.
  stats = restarted.get_stats()
  assert stats['train_episodes'] == 4 and stats['episode_return'] == 3.0
  # A learner resuming from that save again (the restarted one crashed before saving)
  # cannot know how far the games went: it counts none of them.
  again = learner_lib.Learner(config, vtrace_learner.VTrace)
  step(again, 1.0, False)
  step(again, 1.0, True)
  assert again.get_stats()['train_episodes'] == 0
