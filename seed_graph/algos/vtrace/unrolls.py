"""V-trace unroll assembly: each training environment's steps cut into fixed-length
unrolls for the learner.

Unrolls hold `unroll_length + 1` steps; the last step of one unroll is the first of the
next, so the learner can bootstrap from it. Each unroll carries the recurrent state from
before its first step. Steps follow `seed_graph.nodes.learner.agent_states`' conventions; an
episode end inside an unroll stays in it, marked by `dones` (and `truncations` for time
limits). Buffers are preallocated per environment id and filled a whole batch at a time.
"""

from typing import Dict, List, Sequence, Tuple

import numpy as np

# Arrays of an unroll, each `[unroll_length + 1, ...]`. `policy_versions`: the learner's
# gradient steps when each action was chosen (the policy lag's origin).
UNROLL_FIELDS = ('prev_actions', 'rewards', 'dones', 'truncations', 'observations',
                 'actions', 'behaviour_logits', 'policy_versions')


class Unroll:
  """One environment's trajectory piece: `steps` (UNROLL_FIELDS -> arrays) and the
  recurrent state before its first step (a list of arrays, one per state component)."""

  __slots__ = ('env_id', 'steps', 'initial_state')

  def __init__(self, env_id: int, steps: Dict[str, np.ndarray],
               initial_state: List[np.ndarray]):
    self.env_id = env_id
    self.steps = steps
    self.initial_state = initial_state


class UnrollBuilder:
  """See the module docstring."""

  def __init__(self, num_envs: int, unroll_length: int,
               observation_shape: Sequence[int], observation_dtype,
               num_actions: int, core_state_shapes: Sequence[Tuple[int, ...]]):
    self.unroll_length = unroll_length
    steps = unroll_length + 1
    self.positions = np.zeros(num_envs, np.int32)  # Steps in the unroll being built.
    self._initial_states = [np.zeros((num_envs,) + tuple(s), np.float32)
                            for s in core_state_shapes]
    self._buffers = {
        'prev_actions': np.zeros((num_envs, steps), np.int32),
        'rewards': np.zeros((num_envs, steps), np.float32),
        'dones': np.zeros((num_envs, steps), bool),
        'truncations': np.zeros((num_envs, steps), bool),
        'observations': np.zeros((num_envs, steps) + tuple(observation_shape),
                                 observation_dtype),
        'actions': np.zeros((num_envs, steps), np.int32),
        'behaviour_logits': np.zeros((num_envs, steps, num_actions), np.float32),
        'policy_versions': np.zeros((num_envs, steps), np.int64),
    }

  def reset(self, env_ids: np.ndarray):
    """Drops these environments' partial unrolls (a new actor run)."""
    self.positions[env_ids] = 0

  def record(self, env_ids: np.ndarray, step: Dict[str, np.ndarray],
             states_before: Sequence[np.ndarray]) -> List[Unroll]:
    """Appends one step for each of `env_ids`.

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
      for initial, before in zip(self._initial_states, states_before):
        initial[env_ids[starting]] = before[starting]
    for field in UNROLL_FIELDS:
      self._buffers[field][env_ids, positions] = step[field]
    positions += 1
    self.positions[env_ids] = positions

    full = positions == self.unroll_length + 1
    if not full.any():
      return []
    full_ids = env_ids[full]
    steps = {field: self._buffers[field][full_ids] for field in UNROLL_FIELDS}  # Copies.
    initial_states = [initial[full_ids] for initial in self._initial_states]
    # The last step opens the next unroll, which starts from the state before it.
    for field in UNROLL_FIELDS:
      buffer = self._buffers[field]
      buffer[full_ids, 0] = buffer[full_ids, self.unroll_length]
    for initial, before in zip(self._initial_states, states_before):
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
