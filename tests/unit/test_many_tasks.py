"""Many tasks, one learner (`examples/many_tasks.py`): returns per task
(`seed_graph.nodes.learner.task_statistics`), and the program's shape and checks."""

import os

import numpy as np
import pytest

from examples import many_tasks
from seed_graph.nodes.learner import task_statistics
from seed_graph.config.schema import ConfigError
from seed_graph.launch.runs import config_args
from seed_graph.launch.runs import program_args
from tests import helpers

_PROGRAM = 'examples.many_tasks:make_program'
_CONFIG = os.path.join(helpers.REPO, 'examples', 'cartpole_tasks_config.py')


def test_each_task_averages_its_own_episodes_training_and_evaluation_apart():
  # Environments 0-3 train, 4-5 evaluate; task a: 0, 1, 4; task b: 2, 3, 5.
  stats = task_statistics.TaskStatistics({'a': [0, 1, 4], 'b': [2, 3, 5]}, num_envs=6,
                                         num_training_envs=4, window=2)
  assert stats.snapshot() == {'episode_return/a': None, 'episodes/a': 0,
                              'episode_return/b': None, 'episodes/b': 0}
  stats.add(np.array([0, 2, 4]), np.array([1.0, 10.0, 7.0]))
  stats.add(np.array([1, 1]), np.array([3.0, 5.0]))  # Window 2: 1.0 drops out.
  stats.add(np.array([], np.int64), np.array([]))
  assert stats.snapshot() == {'episode_return/a': 4.0, 'eval_episode_return/a': 7.0,
                              'episodes/a': 3, 'episode_return/b': 10.0, 'episodes/b': 1}
  with pytest.raises(ValueError, match="task 'b': environment ids given to two tasks"):
    task_statistics.TaskStatistics({'a': [0, 1], 'b': [1]}, 6, 4, 2)
  with pytest.raises(ValueError, match=r"task 'a': environment ids outside \[0, 6\)"):
    task_statistics.TaskStatistics({'a': [6]}, 6, 4, 2)


def _config(tmp_path, *overrides):
  config = config_args.load(_CONFIG, list(overrides), program_args.config_keys(_PROGRAM))
  config.logdir = str(tmp_path)
  return config


def test_every_task_has_its_actors_and_evaluators_on_its_own_environment(tmp_path):
  config = _config(tmp_path, 'actors.num=2', 'evaluators.num=1')
  program = program_args.build(config, _PROGRAM)
  groups = {name: len(nodes) for name, nodes in program.groups.items()}
  assert groups == {'learner': 1, 'actor': 4, 'evaluator': 2}
  assert len(program_args.learners(program)) == 1
  learner_config, tasks = many_tasks.plan(config)
  assert list(tasks) == ['CartPole-v1', 'CartPole-v0']
  assert [t.env.id for t in tasks.values()] == ['CartPole-v1', 'CartPole-v0']
  assert list(tasks['CartPole-v0'].actors) == [2, 3]
  assert learner_config.actors.num == 4 and learner_config.evaluators.num == 2
  ids = tasks['CartPole-v1'].env_ids + tasks['CartPole-v0'].env_ids
  assert sorted(ids) == list(range(len(ids)))  # Every environment, each in one task.


def test_tasks_that_do_not_share_their_spaces_fail_before_launch(tmp_path):
  config = _config(tmp_path, "tasks.env_values=('CartPole-v1', 'Acrobot-v1')")
  with pytest.raises(ConfigError, match="^tasks.env_values: 'CartPole-v1' and "
                                        "'Acrobot-v1' differ in observation or action"):
    program_args.build(config, _PROGRAM)
  config = _config(tmp_path, 'tasks.env_key=game')
  with pytest.raises(ConfigError, match="^tasks.env_key: env .* has no key 'game'"):
    program_args.build(config, _PROGRAM)
