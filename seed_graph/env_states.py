"""Per-environment state kept by the learner: recurrent state, previous action, episode
statistics and the unroll being built, for every environment of every actor.

Everything is a preallocated NumPy array indexed by environment id, and every method
works on a whole inference batch at once (fancy indexing, no per-environment Python).

Conventions (SEED RL's): the message for a step carries the observation an environment
now shows, plus the reward and `done` of the transition that led to it. When `done` is
set, the observation is the first of the next episode (actors reset automatically);
`truncation` marks a `done` that was a time limit rather than a terminal state.

Unrolls hold `unroll_length + 1` steps; the last step of one unroll is the first of the
next, so the learner can bootstrap from it. Each unroll carries the recurrent state
from before its first step.
"""

from typing import Dict, List, Sequence, Tuple

import numpy as np

# Arrays of an unroll, each `[unroll_length + 1, ...]`.
UNROLL_FIELDS = ('prev_actions', 'rewards', 'dones', 'truncations', 'observations',
                 'actions', 'behaviour_logits')


class Unroll:
  """One environment's trajectory piece: `steps` (UNROLL_FIELDS -> arrays) and the
  recurrent state before its first step (a list of arrays, one per state component)."""

  __slots__ = ('env_id', 'steps', 'initial_state')

  def __init__(self, env_id: int, steps: Dict[str, np.ndarray],
               initial_state: List[np.ndarray]):
    self.env_id = env_id
    self.steps = steps
    self.initial_state = initial_state


class EnvironmentStates:
  """See the module docstring."""

  def __init__(self, num_envs: int, unroll_length: int,
               observation_shape: Sequence[int], observation_dtype,
               num_actions: int, core_state_shapes: Sequence[Tuple[int, ...]]):
    self.num_envs = num_envs
    self.unroll_length = unroll_length
    steps = unroll_length + 1
    self.run_ids = np.zeros(num_envs, np.int64)  # 0: never seen (actors send non-zero).
    self.prev_actions = np.zeros(num_envs, np.int32)
    self.core_states = [np.zeros((num_envs,) + tuple(s), np.float32)
                        for s in core_state_shapes]
    self.episode_returns = np.zeros(num_envs, np.float64)
    self.episode_lengths = np.zeros(num_envs, np.int64)
    self.positions = np.zeros(num_envs, np.int32)  # Steps in the unroll being built.
    self.unroll_initial_states = [np.zeros_like(s) for s in self.core_states]
    self.buffers = {
        'prev_actions': np.zeros((num_envs, steps), np.int32),
        'rewards': np.zeros((num_envs, steps), np.float32),
        'dones': np.zeros((num_envs, steps), bool),
        'truncations': np.zeros((num_envs, steps), bool),
        'observations': np.zeros((num_envs, steps) + tuple(observation_shape),
                                 observation_dtype),
        'actions': np.zeros((num_envs, steps), np.int32),
        'behaviour_logits': np.zeros((num_envs, steps, num_actions), np.float32),
    }

  def reset(self, env_ids: np.ndarray):
    """Forgets everything about these environments (new actor run)."""
    self.prev_actions[env_ids] = 0
    for state in self.core_states:
      state[env_ids] = 0
    self.episode_returns[env_ids] = 0
    self.episode_lengths[env_ids] = 0
    self.positions[env_ids] = 0

  def begin_step(self, env_ids, run_ids, rewards, dones):
    """Resets environments whose run id changed and updates episode statistics.

    Returns:
      (reset_env_ids, finished_env_ids, finished_returns, finished_lengths):
      environments that were reset, and the environment, return and length of each
      episode that ended at this step.
    """
    changed = self.run_ids[env_ids] != run_ids
    reset_ids = env_ids[changed]
    if reset_ids.size:
      self.reset(reset_ids)
      self.run_ids[reset_ids] = run_ids[changed]
    continuing = ~changed
    counted_ids = env_ids[continuing]
    self.episode_returns[counted_ids] += rewards[continuing]
    self.episode_lengths[counted_ids] += 1
    finished_ids = env_ids[continuing & dones]
    finished_returns = self.episode_returns[finished_ids].copy()
    finished_lengths = self.episode_lengths[finished_ids].copy()
    self.episode_returns[finished_ids] = 0
    self.episode_lengths[finished_ids] = 0
    return reset_ids, finished_ids, finished_returns, finished_lengths

  def gather_core_states(self, env_ids) -> List[np.ndarray]:
    return [state[env_ids] for state in self.core_states]

  def end_step(self, env_ids, actions, new_core_states):
    self.prev_actions[env_ids] = actions
    for state, new in zip(self.core_states, new_core_states):
      state[env_ids] = new

  def record(self, env_ids, step: Dict[str, np.ndarray],
             states_before: Sequence[np.ndarray]) -> List[Unroll]:
    """Appends one step for each of `env_ids` (training environments only).

    Args:
      env_ids: `[K]` environment ids, each at most once.
      step: UNROLL_FIELDS -> `[K, ...]` arrays.
      states_before: recurrent state before this step, one `[K, ...]` array per
        component.

    Returns:
      The unrolls completed by this step.
    """
    positions = self.positions[env_ids]
    starting = positions == 0
    if starting.any():
      for initial, before in zip(self.unroll_initial_states, states_before):
        initial[env_ids[starting]] = before[starting]
    for field in UNROLL_FIELDS:
      self.buffers[field][env_ids, positions] = step[field]
    positions += 1
    self.positions[env_ids] = positions

    full = positions == self.unroll_length + 1
    if not full.any():
      return []
    full_ids = env_ids[full]
    steps = {field: self.buffers[field][full_ids] for field in UNROLL_FIELDS}  # Copies.
    initial_states = [initial[full_ids] for initial in self.unroll_initial_states]
    # The last step opens the next unroll, which starts from the state before it.
    for field in UNROLL_FIELDS:
      buffer = self.buffers[field]
      buffer[full_ids, 0] = buffer[full_ids, self.unroll_length]
    for initial, before in zip(self.unroll_initial_states, states_before):
      initial[full_ids] = before[full]
    self.positions[full_ids] = 1
    return [
        Unroll(int(env_id), {f: steps[f][i] for f in UNROLL_FIELDS},
               [s[i] for s in initial_states])
        for i, env_id in enumerate(full_ids)
    ]


def stack_unrolls(unrolls: Sequence[Unroll]):
  """Batches unrolls time-major: ({field: `[T + 1, B, ...]`}, [state `[B, ...]`])."""
  steps = {field: np.stack([u.steps[field] for u in unrolls], axis=1)
           for field in UNROLL_FIELDS}
  states = [np.stack(component) for component in zip(*(u.initial_state for u in unrolls))]
  return steps, states
