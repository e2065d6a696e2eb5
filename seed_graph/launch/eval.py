r"""Evaluates a trained checkpoint: episodes, their returns, and films of them.

  python -m seed_graph.launch.eval --logdir=logs/pong [--episodes=10] [--epsilon=0.01] \
      [--checkpoint=ckpt-12] [--video=logs/pong/videos] [--max_episode_steps=N]
  python -m seed_graph.launch.eval --pretrained=Pong [--video=films/pong] ...

Restores the newest checkpoint of `--logdir` (or `--checkpoint`) into a learner built
from the run's own `<logdir>/config.json`, and plays `--episodes` episodes in this
process through the same path evaluators use in training: the learner's inference step
(`Learner.infer_batch`: per-environment recurrent state, frame stacking, the evaluation
policy, greedy unless `--epsilon`) on requests from an actor's `ActorEnvironments`
(the environment and its preprocessing as in training). A return is the sum of the
rewards the environment gave, as the training metrics count it. Each episode starts a
fresh environment (seed `--seed` + episode).

With `--pretrained=NAME` instead of `--logdir`, evaluates an agent shipped with
seed_graph (`seed_graph.launch.pretrained`: its config and final weights).

Prints each episode and the mean and standard deviation of the returns, and writes them
to `<logdir>/eval.json` (with `--pretrained`, to no file). With `--video=DIR`, films each episode to
`DIR/episode_<n>.mp4` from the environment's `frame()` (Atari: the raw RGB screen, not
the 84x84 input; Football: its mini-map; see `seed_graph.envs.contract`).
"""

import json
import os
import sys
import tempfile
from typing import Optional, Sequence

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '2')

from absl import app  # pylint: disable=g-import-not-at-top
from absl import flags
import ml_collections
import numpy as np
import reverb
import tensorflow as tf

from seed_graph import envs
from seed_graph.config import id_ranges
from seed_graph.launch import pretrained
from seed_graph.launch import video as video_lib
from seed_graph.inference import messages
from seed_graph.launch.runs import config_args
from seed_graph.nodes import actor
from seed_graph.nodes.learner import shell as learner_lib
from seed_graph.programs import registry

_LOGDIR = flags.DEFINE_string('logdir', None, 'A training run\'s --logdir.')
_CHECKPOINT = flags.DEFINE_string('checkpoint', None, 'A checkpoint name in '
                                  '<logdir>/checkpoints (ckpt-N) or a path; default: '
                                  'the newest.')
_EPISODES = flags.DEFINE_integer('episodes', 10, 'Episodes to play.', lower_bound=1)
_EPSILON = flags.DEFINE_float('epsilon', None, 'Random-action probability; default: '
                              'the run\'s evaluators.epsilon.', lower_bound=0,
                              upper_bound=1)
_SEED = flags.DEFINE_integer('seed', 1_000_000, 'Environment seed of the first episode.')
_VIDEO = flags.DEFINE_string('video', None, 'Directory for one MP4 per episode.')
_VIDEO_FPS = flags.DEFINE_float('video_fps', 15.0, 'Frames per second of the films (one '
                                'frame per agent step; Atari at 15 is real time).')
_MAX_STEPS = flags.DEFINE_integer('max_episode_steps', 0, 'Stop an episode after this '
                                  'many steps (0: play to its end); such an episode is '
                                  'marked truncated.', lower_bound=0)
_PRETRAINED = flags.DEFINE_string('pretrained', None, 'An agent shipped with seed_graph '
                                  '(seed_graph/pretrained/NAME.json), instead of --logdir.')
flags.mark_flags_as_mutual_exclusive(['logdir', 'pretrained'], required=True)

_ROW = slice(0, 1)


class EvalError(ValueError):
  """What cannot be evaluated, said in one line."""


def load_config(logdir: str) -> ml_collections.ConfigDict:
  path = os.path.join(logdir, 'config.json')
  if not os.path.exists(path):
    raise EvalError(f'{path} does not exist: --logdir must be a training run\'s')
  return for_evaluation(config_args.logdir_config(logdir))


def for_evaluation(config: ml_collections.ConfigDict) -> ml_collections.ConfigDict:
  """A run's config as this process evaluates it."""
  # One evaluation environment, one row per inference call.
  config.evaluators.num, config.evaluators.env_batch_size = 1, 1
  config.inference.batch_size = 1
  # float32 arithmetic on the same float32 variables: exact, and this process runs
  # without oneDNN, which bfloat16 convolutions need.
  config.network.compute_dtype = 'float32'
  # One device, this process's CPU: an evaluation never trains, and needs no mirrored
  # copies (nor the GPU a learner may have had).
  config.learner.inference_devices = config.learner.training_devices = 0
  config.learner.training_strategy = 'mirrored'
  return config


def make_learner(config: ml_collections.ConfigDict) -> learner_lib.Learner:
  """The run's learner, with the newest checkpoint loaded; it never trains or serves."""
  algorithm = registry.algorithm_builder(config)
  # Only training rows go to a replay; an evaluation sends none, so the client is never
  # used (it connects lazily).
  replay = [reverb.Client('localhost:1')] if algorithm.uses_replay else []
  return learner_lib.Learner(config, algorithm.algorithm, *replay)


def checkpoint_path(logdir: str, name) -> str:
  directory = os.path.join(logdir, 'checkpoints')
  path = os.path.join(directory, name) if name and not os.path.isabs(name) else name
  if path is None:
    path = tf.train.latest_checkpoint(directory)
    if path is None:
      raise EvalError(f'{directory} holds no checkpoint yet')
  if not os.path.exists(path + '.index'):
    raise EvalError(f'no checkpoint {path}')
  return path


def request_parser(learner: learner_lib.Learner,
                   config: ml_collections.ConfigDict) -> messages.RequestParser:
  """Reads the one row an evaluation's environment sends at a time, as the
  inference server would (`play_episode`'s `parse`)."""
  info = envs.read_spec(learner.env_config)
  return messages.RequestParser(info.observation_shape, info.observation_dtype,
                                id_ranges.num_training_envs(config),
                                id_ranges.num_envs(config), max_rows=1)


def play_episode(learner, parse, config: ml_collections.ConfigDict, seed: int,
                 max_steps: int, video=None):
  """One episode from a fresh environment: (return, steps, truncated)."""
  env_id = id_ranges.num_training_envs(config)  # The evaluator's environment.
  env_config = learner.env_config
  if video:  # Films need a screen: the python backend draws one (EnvPool keeps none).
    env_config = ml_collections.ConfigDict(env_config.to_dict())
    env_config.backend = 'python'
  batch = actor.ActorEnvironments(env_config, np.array([env_id], np.int32), seed,
                                 is_eval=True)
  try:
    if video:
      if batch.frame(0) is None:
        raise EvalError(f'--video: env.name={config.env.name!r} draws no frames (it '
                        'has no frame() method; see seed_graph/envs/contract.py)')
      video.add(batch.frame(0))
    total, steps = 0.0, 0
    request = parse(batch.request(_ROW))
    while True:
      batch.step(_ROW, learner.infer_batch([request])[0])
      steps += 1
      request = parse(batch.request(_ROW))  # Carries the step's reward and end.
      total += float(request.rewards[0])
      if request.game_overs[0]:  # A whole game (a lost life may end only an episode).
        return total, steps, False
      if video:
        video.add(batch.frame(0))
      if max_steps and steps >= max_steps:
        return total, steps, True
  finally:
    batch.close()


def _source(logdir: Optional[str], scratch: str):
  """(config, what to restore: a checkpoint's path or a shipped agent's values, its name)."""
  if logdir is None:
    try:
      config, values, _ = pretrained.load(_PRETRAINED.value, scratch)
    except pretrained.PretrainedError as error:
      raise EvalError(str(error)) from None
    return for_evaluation(config), values, f'the shipped agent {_PRETRAINED.value}'
  path = checkpoint_path(logdir, _CHECKPOINT.value)
  return load_config(logdir), path, path


def evaluate(logdir: Optional[str], scratch: str):
  """Plays the episodes with the checkpoint of the run in `logdir` (None: the shipped
  agent of --pretrained; `scratch`: its learner's empty logdir)."""
  config, checkpoint, path = _source(logdir, scratch)
  if _EPSILON.value is not None:
    config.evaluators.epsilon = _EPSILON.value
  learner = make_learner(config)
  learner.restore(checkpoint).expect_partial()  # The optimizer's slots are not needed.
  info = envs.read_spec(learner.env_config)
  parse = request_parser(learner, config)
  print(f'evaluating {path} (learner step {learner.learner_steps}, epsilon '
        f'{config.evaluators.epsilon})', flush=True)
  results = []
  for episode in range(_EPISODES.value):
    video = None
    if _VIDEO.value:
      video = video_lib.VideoWriter(
          os.path.join(_VIDEO.value, f'episode_{episode:03d}.mp4'), _VIDEO_FPS.value)
    try:
      episode_return, steps, truncated = play_episode(
          learner, parse, config, _SEED.value + episode, _MAX_STEPS.value, video)
    finally:
      if video:
        video.close()
    results.append(dict(episode_return=episode_return, steps=steps, truncated=truncated,
                        frames=steps * info.frames_per_step,
                        video=video.path if video else None))
    print(f'episode {episode}: return {episode_return:g}, {steps} steps'
          + (' (truncated)' if truncated else '')
          + (f', {video.path} ({video.frames} frames)' if video else ''), flush=True)
  return path, learner.learner_steps, config.evaluators.epsilon, results


def main(argv: Sequence[str]):
  if len(argv) > 1:
    raise app.UsageError(f'unexpected arguments: {argv[1:]}')
  logdir = os.path.abspath(_LOGDIR.value) if _LOGDIR.value else None
  try:
    with tempfile.TemporaryDirectory() as scratch:
      path, learner_steps, epsilon, results = evaluate(logdir, scratch)
  except EvalError as error:
    print(f'error: {error}', file=sys.stderr, flush=True)
    return 2
  returns = np.array([r['episode_return'] for r in results])
  summary = dict(checkpoint=path, learner_steps=learner_steps, epsilon=epsilon,
                 episodes=len(results), mean_return=float(returns.mean()),
                 std_return=float(returns.std()), results=results)
  written = os.path.join(logdir, 'eval.json') if logdir else None
  if written:
    with open(written, 'w') as f:
      json.dump(summary, f, indent=2)
  print(f'mean return {returns.mean():g} (std {returns.std():g}) over {len(results)} '
        f'episodes' + (f'; {written}' if written else ''), flush=True)


if __name__ == '__main__':
  sys.exit(app.run(main))
