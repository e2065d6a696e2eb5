"""Which environment ids belong to which actor or evaluator.

Training environments come first: actor i steps ids [i * E, (i + 1) * E) with
E = actors.env_batch_size. Evaluation environments follow them. The learner keeps
per-environment state in arrays indexed by these ids.
"""


def num_training_envs(config) -> int:
  return config.actors.num * config.actors.env_batch_size


def num_envs(config) -> int:
  return num_training_envs(config) + config.evaluators.num * config.evaluators.env_batch_size


def actor_env_ids(config, actor_index: int):
  size = config.actors.env_batch_size
  return list(range(actor_index * size, (actor_index + 1) * size))


def evaluator_env_ids(config, evaluator_index: int):
  size = config.evaluators.env_batch_size
  start = num_training_envs(config) + evaluator_index * size
  return list(range(start, start + size))
