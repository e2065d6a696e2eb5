"""Many tasks, one learner (IMPALA's and SEED's DMLab-30 setting), as a program of one's
own: one V-trace learner serves and trains on actors whose environments differ in one
env key, e.g. several Atari games with the full action set, or several Gymnasium ids:

    learner <-- inference -- actors and evaluators of task 1 (env.<key> = value 1)
            <-- inference -- actors and evaluators of task 2 (env.<key> = value 2)
            ...

Every task gets `actors.num` actors and `evaluators.num` evaluators. The learner's
metrics, `get_stats` and the status line give each task's returns
(`episode_return/<task>`, `eval_episode_return/<task>`, `episodes/<task>`) beside the
overall ones. The tasks must share observation and action spaces; a program whose tasks
do not fails before launch, naming both.

    python -m seed_graph.launch.local --program=examples.many_tasks:make_program \\
        --config=atari_vtrace_fast --config.env.full_action_space=true \\
        --config.tasks.env_key=game --config.tasks.env_values="('Pong', 'Breakout')"
    python -m seed_graph.launch.local --program=examples.many_tasks:make_program \\
        --config=examples/cartpole_tasks_config.py
"""

import dataclasses
from typing import Dict, List, Sequence, Tuple

import launchpad as lp
import ml_collections

import seed_graph as sg

CONFIG_KEYS = {'tasks': {
    'env_key': sg.Key('id', 'The env key whose value makes each task: game for Atari, '
                      'id for Gymnasium, scenario for Football.'),
    'env_values': sg.Key(('CartPole-v1', 'CartPole-v0'),
                         'One task per value, named by it.',
                     lambda v: None if len(v) >= 1 else 'at least one task'),
}}


def task_envs(config) -> dict:
  """{task name: its env config}; ConfigError if the tasks' spaces differ."""
  key = config.tasks.env_key
  if key not in config.env:
    raise sg.ConfigError(f'tasks.env_key: env (name {config.env.name!r}) has no key '
                         f'{key!r}')
  tasks, specs = {}, {}
  for value in config.tasks.env_values:
    env = ml_collections.ConfigDict(config.env.to_dict())
    env[key] = value
    tasks[str(value)] = env
    specs[str(value)] = sg.read_spec(sg.acting_config(
        env, sg.VTrace.stacks_frames))
  first = next(iter(specs))
  for name, spec in specs.items():
    if spec != specs[first]:
      raise sg.ConfigError(f'tasks.env_values: {first!r} and {name!r} differ in '
                           f'observation or action space ({specs[first]} vs {spec})')
  return tasks


@dataclasses.dataclass
class Task:
  env: ml_collections.ConfigDict   # Its environment.
  actors: Sequence[int]            # Its actors' and evaluators' indices in the program.
  evaluators: Sequence[int]
  env_ids: List[int]               # Its environments' ids at the learner.


def plan(config) -> Tuple[ml_collections.ConfigDict, Dict[str, Task]]:
  """(the learner's config: every task's actors and evaluators, the first task's env;
  each task by name)."""
  envs_by_task = task_envs(config)
  actors, evaluators = config.actors.num, config.evaluators.num
  learner_config = ml_collections.ConfigDict(config.to_dict())
  learner_config.actors.num = actors * len(envs_by_task)
  learner_config.evaluators.num = evaluators * len(envs_by_task)
  learner_config.env = next(iter(envs_by_task.values()))
  tasks = {}
  for k, (name, env) in enumerate(envs_by_task.items()):
    task = Task(env, range(k * actors, (k + 1) * actors),
                range(k * evaluators, (k + 1) * evaluators), [])
    for i in task.actors:
      task.env_ids += sg.actor_env_ids(learner_config, i)
    for i in task.evaluators:
      task.env_ids += sg.evaluator_env_ids(learner_config, i)
    tasks[name] = task
  return learner_config, tasks


def make_program(config: ml_collections.ConfigDict) -> lp.Program:
  learner_config, tasks = plan(config)
  program = lp.Program('many_tasks')
  with program.group('learner'):
    learner = program.add_node(sg.LearnerNode(
        learner_config, sg.VTrace,
        tasks={name: task.env_ids for name, task in tasks.items()}))
  for task in tasks.values():
    sg.add_actors_and_evaluators(program, learner, learner_config, task.env,
                                 actors=task.actors, evaluators=task.evaluators)
  return program
