r"""How closely a shipped agent plays as the checkpoint it was made from: the checkpoint
plays `launch.eval`'s games, and at each of its steps the shipped values act on the same
inputs beside it.

  python -m benchmarks.shipped_agent --logdir=runs/atari/BeamRider/seed1 \
      --shipped=BeamRider [--episodes=10] [--seed=1000000] [--epsilon=...]
  python -m benchmarks.shipped_agent --logdir=runs/atari/BeamRider/seed1 \
      --shipped=BeamRider --episodes=1 --max_episode_steps=100   # a few seconds

`--logdir` is the run (its newest checkpoint, or `--checkpoint`); every other flag of
`launch.eval` works the same, so the games are the ones `launch.eval --logdir=RUN` plays.
Printed per game (a JSON line each): its return and steps, the largest difference
between the two policies' logits, and the steps where their greedy actions differ, each
with the checkpoint's gap between its two best logits there. A game that
`launch.eval --pretrained=NAME` plays the same way has no such step, or only steps where
the action did not change the game (or was a random one, of epsilon); from the first that
did, the two play different games, and so do the later ones, whose random actions come
from the same stream. docs/running.md ("Shipped agents") reports it for each agent.
"""

import json
import os
import sys
import tempfile
from typing import List, Optional

from absl import app
from absl import flags
import numpy as np

from seed_graph.launch import eval as eval_lib
from seed_graph.launch import pretrained
from seed_graph.nodes.learner import shell as learner_lib

FLAGS = flags.FLAGS  # launch.eval's, and these two:
_SHIPPED = flags.DEFINE_string('shipped', None, 'The shipped agent made from --logdir\'s '
                               'run (seed_graph/pretrained/NAME.json).')
_FOLDER = flags.DEFINE_string('shipped_folder', pretrained.FOLDER, 'Where it is.')


class SideBySide:
  """Wraps a learner's policy call: the shipped learner's policy runs on the same inputs,
  and where their greedy actions differ is recorded (the played action is the first
  learner's)."""

  def __init__(self, played: learner_lib.Learner, shipped: learner_lib.Learner):
    self._play, self._shipped = played.run_policy, shipped
    played.run_policy = self  # infer_batch calls it with the step's whole inputs.
    self.reset()

  def reset(self) -> None:
    self.steps, self.max_logit_difference, self.differences = 0, 0.0, []

  def __call__(self, device: int, *inputs):
    actions, logits, state = self._play(device, *inputs)
    _, shipped_logits, _ = self._shipped.run_policy(device, *inputs)
    ours, theirs = np.asarray(logits, np.float64), np.asarray(shipped_logits, np.float64)
    self.max_logit_difference = max(self.max_logit_difference,
                                    float(np.abs(ours - theirs).max()))
    for row in np.flatnonzero(ours.argmax(-1) != theirs.argmax(-1)):
      best_two = np.sort(ours[row])[-2:]
      self.differences.append(dict(step=self.steps, checkpoint_action=int(ours[row].argmax()),
                                   shipped_action=int(theirs[row].argmax()),
                                   checkpoint_gap=float(best_two[1] - best_two[0])))
    self.steps += 1
    return actions, logits, state


def compare(logdir: str, name: str, folder: str = pretrained.FOLDER, episodes: int = 10,
            seed: int = 1_000_000, epsilon: Optional[float] = None,
            checkpoint: Optional[str] = None, max_steps: int = 0) -> List[dict]:
  """One dict per game of the checkpoint in `logdir` (`launch.eval`'s flags as
  arguments), the shipped agent `name` beside it."""
  with tempfile.TemporaryDirectory() as scratch:
    shipped_config, values, _ = pretrained.load(name, scratch, folder)
    config = eval_lib.load_config(logdir)
    if epsilon is not None:
      config.evaluators.epsilon = epsilon
    shipped = eval_lib.make_learner(eval_lib.for_evaluation(shipped_config))
    shipped.restore(values).expect_partial()
    # Built last, as in launch.eval: its random actions are that process's stream.
    learner = eval_lib.make_learner(config)
    learner.restore(eval_lib.checkpoint_path(logdir, checkpoint)
                    ).expect_partial()
    side_by_side = SideBySide(learner, shipped)
    parse = eval_lib.request_parser(learner, config)
    games = []
    for episode in range(episodes):
      side_by_side.reset()
      episode_return, steps, _ = eval_lib.play_episode(
          learner, parse, config, seed + episode, max_steps)
      games.append(dict(episode=episode, episode_return=episode_return, steps=steps,
                        max_logit_difference=side_by_side.max_logit_difference,
                        greedy_differs=side_by_side.differences))
      print(json.dumps(games[-1]), flush=True)
  return games


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f'unexpected arguments: {argv[1:]}')
  try:
    compare(os.path.abspath(FLAGS.logdir), _SHIPPED.value, _FOLDER.value, FLAGS.episodes,
            FLAGS.seed, FLAGS.epsilon, FLAGS.checkpoint, FLAGS.max_episode_steps)
  except (eval_lib.EvalError, pretrained.PretrainedError) as error:
    print(f'error: {error}', file=sys.stderr, flush=True)
    return 2
  return None


if __name__ == '__main__':
  flags.mark_flag_as_required('logdir')
  flags.mark_flag_as_required('shipped')
  sys.exit(app.run(main))
