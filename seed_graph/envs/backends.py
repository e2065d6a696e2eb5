"""An actor's environments, stepped a group at a time, chosen by `config.env.backend`.

Two backends keep one contract, so the actor and the env-only benchmark run either:
- 'python': one `seed_graph.envs` environment object per environment, stepped one by one
  in Python. Every environment kind has it.
- 'envpool': Atari through EnvPool, whose C++ threads step a group's environments with
  the GIL released (`seed_graph.envs.envpool_atari`).

The contract (see `PythonBackend`): `observation_shape`, `observation_dtype`, `num_actions`,
`frames_per_step`; `reset(observations)` writes every environment's first observation;
`step(group, actions, rewards, dones, truncations, game_overs, observations)` steps the
environments of `group` (a slice of the batch; groups are fixed when the batch is made)
and writes their outcome into those arrays' rows of `group`. An environment whose episode
ended resets in the same call: its row holds the last reward, `dones` True (`truncations`
True if a time limit ended it, `game_overs` True unless only a life was lost: see
`seed_graph.envs.atari_episodes`) and the next episode's first observation.
"""

from typing import Sequence

import numpy as np
import ml_collections

from seed_graph import envs


def validate_config(env_config: ml_collections.ConfigDict):
  """`envs.validate_config`, then `env.backend`: raises ValueError naming the key."""
  envs.validate_config(env_config)
  if env_config.backend == 'envpool':
    if env_config.name != 'atari':
      raise ValueError(f"env.backend='envpool' is for env.name='atari' only, not "
                       f'{env_config.name!r}')
    from seed_graph.envs import envpool_atari  # pylint: disable=g-import-not-at-top
    envpool_atari.validate_config(env_config)


def make(env_config: ml_collections.ConfigDict, seeds: Sequence[int],
         groups: Sequence[slice]):
  """The environments of one actor: environment i seeded with `seeds[i]`."""
  if env_config.backend == 'envpool':
    from seed_graph.envs import envpool_atari  # pylint: disable=g-import-not-at-top
    return envpool_atari.EnvPoolAtari(env_config, seeds, groups)
  return PythonBackend(env_config, seeds)


class PythonBackend:
  """'python': `envs.make_environment` objects stepped in a Python loop."""

  def __init__(self, env_config: ml_collections.ConfigDict, seeds: Sequence[int]):
    self._environments = [envs.make_environment(env_config, seed) for seed in seeds]
    first = self._environments[0]
    spec = first.observation_spec()
    self.observation_shape = tuple(spec.shape)
    self.observation_dtype = np.dtype(spec.dtype)
    self.num_actions = int(first.action_spec().num_values)
    self.frames_per_step = int(getattr(first, 'frames_per_step', 1))

  def reset(self, observations: np.ndarray):
    for i, env in enumerate(self._environments):
      observations[i] = env.reset().observation

  def step(self, group: slice, actions: np.ndarray, rewards: np.ndarray, dones: np.ndarray,
           truncations: np.ndarray, game_overs: np.ndarray, observations: np.ndarray):
    for i, action in zip(range(group.start, group.stop), actions):
      env = self._environments[i]
      timestep = env.step(action)
      rewards[i] = timestep.reward
      last = timestep.last()
      dones[i] = last
      # dm_env.truncation (a time limit) keeps discount 1; a terminal state has 0.
      truncations[i] = last and timestep.discount is not None and timestep.discount > 0
      game_overs[i] = last and getattr(env, 'game_over', True)
      observations[i] = env.reset().observation if last else timestep.observation

  def frame(self, index: int):
    """Environment `index`'s picture (its `frame()`, see `envs.contract`), or None."""
    frame = getattr(self._environments[index], 'frame', None)
    return frame() if frame else None

  def close(self):
    for env in self._environments:
      close = getattr(env, 'close', None)
      if close:
        close()
