"""The inference edge's one request/response contract, used by actors and the learner.

A request carries one step of some of an actor's (or evaluator's) environments:

  env_ids       int32 [B]   which environments (`seed_graph.config.id_ranges`)
  run_ids       int64 [B]   non-zero, new for every actor run (the learner resets an
                            environment whose run id changes)
  rewards       float32 [B] reward of the transition into this step
  dones         bool [B]    that transition ended an episode (the observation is then
                            the first of the next one)
  truncations   bool [B]    the episode end was a time limit, not a terminal state
  game_overs    bool [B]    the episode end also ended the game; False where only a
                            life was lost (`env.episodic_life`): returns are whole games
  observations  [B, ...]    the environment's observation dtype and shape
  meta.eval     bool        evaluation environments (acted for, never trained on)

A response carries `actions`, int32 [B], in the request's row order. Both travel as
`seed_graph.inference.wire` messages. No TensorFlow here: actors import this too.
"""

import math
from typing import List, NamedTuple, Optional, Sequence

import numpy as np

from seed_graph.inference import wire

# Dtypes of every request array but `observations` (the environment's own dtype).
REQUEST_DTYPES = {'env_ids': np.int32, 'run_ids': np.int64, 'rewards': np.float32,
                  'dones': np.bool_, 'truncations': np.bool_, 'game_overs': np.bool_}
_ROW_FIELDS = ('run_ids', 'rewards', 'dones', 'truncations', 'game_overs')


class InferenceRequest(NamedTuple):
  """A parsed request. `is_eval` is a bool for one request and a per-row bool array
  for requests merged into a batch (`merge_requests`)."""
  env_ids: np.ndarray
  run_ids: np.ndarray
  rewards: np.ndarray
  dones: np.ndarray
  truncations: np.ndarray
  observations: np.ndarray
  is_eval: object
  game_overs: np.ndarray


def encode_request(env_ids: np.ndarray, run_ids: np.ndarray, rewards: np.ndarray,
                   dones: np.ndarray, truncations: np.ndarray, observations: np.ndarray,
                   is_eval: bool, game_overs: Optional[np.ndarray] = None) -> bytes:
  """One request message from `[B, ...]` arrays (see the module docstring);
  `game_overs` defaults to `dones` (every episode is a whole game)."""
  return wire.encode({'env_ids': env_ids, 'run_ids': run_ids, 'rewards': rewards,
                      'dones': dones, 'truncations': truncations,
                      'game_overs': dones if game_overs is None else game_overs,
                      'observations': observations}, {'eval': bool(is_eval)})


def encode_actions(actions: np.ndarray) -> bytes:
  return wire.encode({'actions': np.asarray(actions, np.int32)})


def decode_actions(message: bytes) -> np.ndarray:
  arrays, _ = wire.decode(message)
  if 'actions' not in arrays:
    raise wire.WireFormatError('response without an actions array')
  return arrays['actions']


def merge_requests(requests: Sequence[InferenceRequest]) -> InferenceRequest:
  """The rows of several requests as one, in order; `is_eval` becomes per row."""
  join = lambda field: np.concatenate([getattr(r, field) for r in requests])
  return InferenceRequest(
      join('env_ids'), join('run_ids'), join('rewards'), join('dones'),
      join('truncations'), join('observations'),
      np.concatenate([np.full(len(r.env_ids), r.is_eval) for r in requests]),
      join('game_overs'))


def split_rows(rows: np.ndarray, requests: Sequence[InferenceRequest]) -> List[np.ndarray]:
  """Per-request slices of `rows` (one row per merged request row, in order)."""
  parts, start = [], 0
  for request in requests:
    end = start + len(request.env_ids)
    parts.append(rows[start:end])
    start = end
  return parts


class RequestParser:
  """Decodes and validates a request against the environment spec and the program's
  environment ids. Raises `wire.WireFormatError` naming the field at fault."""

  def __init__(self, observation_shape: Sequence[int], observation_dtype,
               num_training_envs: int, num_envs: int, max_rows: int):
    self._dtypes = dict(REQUEST_DTYPES, observations=np.dtype(observation_dtype))
    self._observation_shape = tuple(observation_shape)
    self._num_training_envs = num_training_envs
    self._num_envs = num_envs
    self._max_rows = max_rows

  def __call__(self, message: bytes) -> InferenceRequest:
    arrays, meta = wire.decode(message)
    for name, dtype in self._dtypes.items():
      if name not in arrays:
        raise wire.WireFormatError(f'missing array {name!r}')
      if arrays[name].dtype != dtype:
        raise wire.WireFormatError(
            f'{name}: dtype {arrays[name].dtype}, expected {np.dtype(dtype)}')
    rows = arrays['env_ids'].shape
    if len(rows) != 1 or not 0 < rows[0] <= self._max_rows:
      raise wire.WireFormatError(
          f'env_ids: shape {rows}, expected [B] with 0 < B <= {self._max_rows}')
    for name in _ROW_FIELDS:
      if arrays[name].shape != rows:
        raise wire.WireFormatError(f'{name}: shape {arrays[name].shape}, expected {rows}')
    if arrays['observations'].shape != rows + self._observation_shape:
      raise wire.WireFormatError(f'observations: shape {arrays["observations"].shape}, '
                                 f'expected {rows + self._observation_shape}')
    is_eval = meta.get('eval', False)
    if not isinstance(is_eval, bool):
      raise wire.WireFormatError(f'meta.eval: expected a bool, got {is_eval!r}')
    self._check_ids(arrays['env_ids'], arrays['run_ids'], is_eval)
    self._check_finite(arrays)
    return InferenceRequest(is_eval=is_eval, **{name: arrays[name] for name in self._dtypes})

  def max_message_bytes(self) -> int:
    """The size of the largest legal request (the edge refuses larger messages)."""
    rows = self._max_rows
    observation = math.prod(self._observation_shape) * self._dtypes['observations'].itemsize
    return wire.message_size_bound(
        [rows * np.dtype(d).itemsize for d in REQUEST_DTYPES.values()] + [rows * observation])

  def _check_finite(self, arrays):
    """NaN or inf would reach training through rewards or float observations."""
    for name in ('rewards', 'observations'):
      values = arrays[name]
      if values.dtype.kind == 'f' and not np.isfinite(values).all():
        raise wire.WireFormatError(f'{name}: non-finite values (NaN or inf)')

  def _check_ids(self, env_ids: np.ndarray, run_ids: np.ndarray, is_eval):
    low, high = ((self._num_training_envs, self._num_envs) if is_eval
                 else (0, self._num_training_envs))
    if env_ids.min() < low or env_ids.max() >= high:
      raise wire.WireFormatError(
          f'env_ids: {"evaluation" if is_eval else "training"} ids must be in '
          f'[{low}, {high}), got {env_ids.min()}..{env_ids.max()}')
    if np.unique(env_ids).size != env_ids.size:
      raise wire.WireFormatError('env_ids: duplicate ids in one request')
    if (run_ids == 0).any():
      raise wire.WireFormatError('run_ids: must be non-zero')
