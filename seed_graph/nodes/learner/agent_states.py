"""Per-environment state kept by the learner for every environment of every actor:
the actor run it belongs to, its previous action and recurrent state, and the
statistics of its episodes.

Everything is a preallocated NumPy array indexed by environment id, and every method
works on a whole inference batch at once (fancy indexing, no per-environment Python).

Conventions (SEED RL's): the message for a step carries the observation an environment
now shows, plus the reward and `done` of the transition that led to it. When `done` is
set, the observation is the first of the next episode (actors reset automatically).
A step whose run id differs from the one stored starts the environment afresh: its
reward and `done` belong to the previous run and are not counted.
"""

import collections
import threading
from typing import List, Optional, Sequence, Tuple

import numpy as np


class AgentStates:
  """Run ids, previous actions and recurrent states, indexed by environment id."""

  def __init__(self, num_envs: int, core_state_shapes: Sequence[Tuple[int, ...]]):
    self.run_ids = np.zeros(num_envs, np.int64)  # 0: never seen (actors send non-zero).
    self.prev_actions = np.zeros(num_envs, np.int32)
    self.core_states = [np.zeros((num_envs,) + tuple(s), np.float32)
                        for s in core_state_shapes]

  def begin_step(self, env_ids: np.ndarray, run_ids: np.ndarray) -> np.ndarray:
    """Resets the environments whose run id changed; returns that per-row mask."""
    new_run = self.run_ids[env_ids] != run_ids
    reset_ids = env_ids[new_run]
    if reset_ids.size:
      self.prev_actions[reset_ids] = 0
      for state in self.core_states:
        state[reset_ids] = 0
      self.run_ids[reset_ids] = run_ids[new_run]
    return new_run

  def num_seen(self) -> int:
    """Environments that have stepped at least once."""
    return int(np.count_nonzero(self.run_ids))

  def gather_core_states(self, env_ids: np.ndarray) -> List[np.ndarray]:
    return [state[env_ids] for state in self.core_states]

  def end_step(self, env_ids: np.ndarray, actions: np.ndarray, new_core_states):
    self.prev_actions[env_ids] = actions
    for state, new in zip(self.core_states, new_core_states):
      state[env_ids] = new


class EpisodeStatistics:
  """Episode returns and lengths of training and evaluation environments (ids below
  `num_training_envs` train), with the means over the last `window` training episodes
  and the last `eval_window` evaluation episodes (`window` if not given), and how many
  games the environment's time limit ended (a step that ends a game with `truncations`
  set): a game that never ends by itself, such as Pong's endless rallies, shows there
  and in the lengths, not in the return. Thread-safe: the inference thread updates, the
  control edge reads.

  A learner restarts alone (a planned restart, a crash) while the actors play on. Each
  environment is told by its run id: the same as when the restored state was saved
  (`state`) means the same actor run, mid-game; another means the actor started afresh,
  and its first game counts, as after a whole program's resume. A game in flight goes on
  where it was when the save was taken with inference stopped (`state(in_flight=True)`,
  the learner's last save before it exits): its return and length so far were saved
  with it, and no step of it was lost. After any other save (a periodic one, then a
  crash) its earlier rewards are gone, and that game is not counted: counting it
  undercounted every game in flight (in a Pong run each planned restart pulled the mean
  down by 1-3 points), and dropping every one biases the mean towards short games (a
  Breakout run restarting every 15 minutes, its games 11 minutes long, counted 14 of
  its 48 environments' games between restarts). In-flight state is taken back once: the
  learner's next save, periodic, no longer holds it."""

  def __init__(self, num_envs: int, num_training_envs: int, window: int,
               eval_window: Optional[int] = None, frames_per_step: int = 1):
    self._num_training_envs = num_training_envs
    self._frames_per_step = frames_per_step
    self._returns = np.zeros(num_envs, np.float64)
    self._steps = np.zeros(num_envs, np.int64)  # Agent steps of each game so far.
    self._run_ids = np.zeros(num_envs, np.int64)  # Of each environment's actor run.
    self._restored_run_ids: Optional[np.ndarray] = None  # Theirs at the restored save.
    self._restored_games: Optional[dict] = None  # Games in flight there (`in_flight`).
    self._seen = np.zeros(num_envs, bool)  # Stepped since this learner started.
    self._partial = np.zeros(num_envs, bool)  # In a game begun before it: not counted.
    self._windows = {'train': collections.deque(maxlen=window),
                     'eval': collections.deque(maxlen=eval_window or window)}
    self._frame_windows = {kind: collections.deque(maxlen=w.maxlen)
                           for kind, w in self._windows.items()}
    self._episodes = {'train': 0, 'eval': 0}
    self._time_limited = {'train': 0, 'eval': 0}
    self._lock = threading.Lock()

  def update(self, env_ids: np.ndarray, rewards: np.ndarray, game_overs: np.ndarray,
             new_run, run_ids: Optional[np.ndarray] = None,
             truncations: Optional[np.ndarray] = None) -> Tuple[np.ndarray, np.ndarray]:
    """Adds one step per row; returns (env ids, returns) of the episodes it ended. An
    episode here is a whole game: it ends where `game_overs` is set (a lost life that
    ended a training episode, `env.episodic_life`, does not end it). `run_ids`: each
    row's actor run (None: unknown, and every game counts); `truncations`: whether the
    time limit ended the step's episode (None: never)."""
    first_sight = ~self._seen[env_ids]
    if first_sight.any():
      new_run = new_run & ~self._take_back(env_ids, first_sight, run_ids, game_overs)
    if run_ids is not None and new_run.any():
      self._run_ids[env_ids[new_run]] = run_ids[new_run]
    if new_run.any():
      self._partial[env_ids[new_run & ~first_sight]] = False  # An actor's fresh start.
      self._returns[env_ids[new_run]] = 0
      self._steps[env_ids[new_run]] = 0
    continuing = ~new_run
    continuing_ids = env_ids[continuing]  # Once per batch: this runs on every inference.
    self._returns[continuing_ids] += rewards[continuing]
    self._steps[continuing_ids] += 1
    ended = continuing & game_overs
    finished_ids = env_ids[ended]
    finished_returns = self._returns[finished_ids].copy()
    finished_steps = self._steps[finished_ids].copy()
    time_limited = (truncations[ended] if truncations is not None
                    else np.zeros(finished_ids.size, bool))
    self._returns[finished_ids] = 0
    self._steps[finished_ids] = 0
    whole = ~self._partial[finished_ids]
    self._partial[finished_ids] = False
    finished_ids, finished_returns = finished_ids[whole], finished_returns[whole]
    if finished_ids.size:
      self._add_games(finished_ids, finished_returns, finished_steps[whole],
                      time_limited[whole])
    return finished_ids, finished_returns

  def _take_back(self, env_ids: np.ndarray, first_sight: np.ndarray,
                 run_ids: Optional[np.ndarray], game_overs: np.ndarray) -> np.ndarray:
    """For rows of environments this learner sees for the first time: marks those in a
    game begun before the restored save as partial, or, where that save holds their game
    in flight, takes its return and length back; returns the per-row mask of the latter
    (their step continues that game, whatever a fresh `AgentStates` says)."""
    seen = env_ids[first_sight]
    self._seen[seen] = True
    resumed = np.zeros(env_ids.size, bool)
    if self._restored_run_ids is None or run_ids is None:
      return resumed
    same_run = self._restored_run_ids[seen] == run_ids[first_sight]
    if self._restored_games is None:
      self._partial[seen] = same_run & ~game_overs[first_sight]  # Mid-game unless it ends.
      return resumed
    kept = seen[same_run]
    self._run_ids[kept] = self._restored_run_ids[kept]
    self._returns[kept] = self._restored_games['returns'][kept]
    self._steps[kept] = self._restored_games['steps'][kept]
    self._partial[kept] = self._restored_games['partial'][kept]
    resumed[np.flatnonzero(first_sight)[same_run]] = True
    return resumed

  def _add_games(self, env_ids: np.ndarray, returns: np.ndarray, steps: np.ndarray,
                 time_limited: np.ndarray) -> None:
    with self._lock:
      for env_id, value, length, limited in zip(env_ids.tolist(), returns.tolist(),
                                                steps.tolist(), time_limited.tolist()):
        kind = 'train' if env_id < self._num_training_envs else 'eval'
        self._windows[kind].append(value)
        self._frame_windows[kind].append(length * self._frames_per_step)
        self._episodes[kind] += 1
        self._time_limited[kind] += int(limited)

  def state(self, in_flight: bool = False) -> dict:
    """The windows' returns, the episode counts and each environment's run id, JSON-able,
    for `restore`; with `in_flight` (only while no step can arrive: inference stopped),
    each environment's game so far too."""
    with self._lock:
      state = {kind: {'returns': list(window), 'episodes': self._episodes[kind],
                      'frames': list(self._frame_windows[kind]),
                      'time_limited': self._time_limited[kind]}
               for kind, window in self._windows.items()}
    state['run_ids'] = self._run_ids.tolist()
    if in_flight:
      state['in_flight'] = {'returns': self._returns.tolist(), 'steps': self._steps.tolist(),
                            'partial': self._partial.tolist()}
    return state

  def restore(self, state: dict) -> None:
    """Takes back what `state` gave (a resumed run's windows go on from there); each
    window keeps its newest returns if it is smaller now."""
    saved_ids = state.get('run_ids')
    if isinstance(saved_ids, list) and len(saved_ids) == len(self._run_ids):
      self._restored_run_ids = np.array(saved_ids, np.int64)
      games = state.get('in_flight') or {}
      if all(len(games.get(key) or ()) == len(saved_ids)
             for key in ('returns', 'steps', 'partial')):
        self._restored_games = {
            'returns': np.array(games['returns'], np.float64),
            'steps': np.array(games['steps'], np.int64),
            'partial': np.array(games['partial'], bool)}
    with self._lock:
      for kind, window in self._windows.items():
        saved = state.get(kind, {})
        window.clear()
        window.extend(float(value) for value in saved.get('returns', []))
        self._frame_windows[kind].clear()  # A save from before lengths were kept has none.
        self._frame_windows[kind].extend(int(value) for value in saved.get('frames', []))
        self._episodes[kind] = int(saved.get('episodes', 0))
        self._time_limited[kind] = int(saved.get('time_limited', 0))

  def snapshot(self) -> dict:
    """`episode_return`, `eval_episode_return`, `episode_frames` and
    `eval_episode_frames` (window means, None before the first episode; frames, frame
    skip included), `train_episodes`, `eval_episodes` and `time_limited_games` (the
    training games the time limit ended; counts since the run started)."""
    with self._lock:
      mean = lambda values: float(np.mean(values)) if values else None
      return {'episode_return': mean(self._windows['train']),
              'eval_episode_return': mean(self._windows['eval']),
              'episode_frames': mean(self._frame_windows['train']),
              'eval_episode_frames': mean(self._frame_windows['eval']),
              'train_episodes': self._episodes['train'],
              'eval_episodes': self._episodes['eval'],
              'time_limited_games': self._time_limited['train']}
