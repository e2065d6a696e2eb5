"""Which environment ids belong to which actor or evaluator.

Training environments come first: actor i steps ids [i * E, (i + 1) * E) with
E = actors.env_batch_size. Evaluation environments follow them. The learner keeps
per-environment state in arrays indexed by these ids. An actor with G env groups splits
its environments into G contiguous groups (see `env_group_slices`), one request each.
"""

import ml_collections


def num_training_envs(config: ml_collections.ConfigDict) -> int:
  return config.actors.num * config.actors.env_batch_size


def num_envs(config: ml_collections.ConfigDict) -> int:
  return num_training_envs(config) + config.evaluators.num * config.evaluators.env_batch_size


def actor_env_ids(config: ml_collections.ConfigDict, actor_index: int):
  size = config.actors.env_batch_size
  return list(range(actor_index * size, (actor_index + 1) * size))


def evaluator_env_ids(config: ml_collections.ConfigDict, evaluator_index: int):
  size = config.evaluators.env_batch_size
  start = num_training_envs(config) + evaluator_index * size
  return list(range(start, start + size))


def env_group_slices(num_envs: int, num_groups: int):
  """Contiguous groups of an actor's environments; the first `num_envs % num_groups`
  groups hold one more, so the largest holds ceil(num_envs / num_groups)."""
  size, larger = divmod(num_envs, num_groups)
  slices, start = [], 0
  for group in range(num_groups):
    stop = start + size + (1 if group < larger else 0)
    slices.append(slice(start, stop))
    start = stop
  return slices


def largest_actor_request(config: ml_collections.ConfigDict) -> int:
  """Rows in an actor's biggest inference request (one env group)."""
  return env_group_slices(config.actors.env_batch_size, config.actors.env_groups)[0].stop
