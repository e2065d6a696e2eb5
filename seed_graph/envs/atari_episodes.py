"""Where an Atari training episode starts and ends, beyond the game's own end:

- `env.episodic_life`: a lost life ends the episode (the learner's value targets stop
  there, as at a game's end), but not the game: the next `reset()` continues it with a
  no-op step instead of a new game. `game_over` says, after an episode's last step,
  whether the game ended too, so returns are still counted per whole game (what
  published Atari scores are).
- `env.fire_reset`: at every episode start (a new game or a new life) press FIRE and
  then action 2, in games whose action 1 is FIRE: several games (Breakout among them)
  wait for FIRE before they go on.

Both as in the Atari preprocessing of OpenAI Baselines that CleanRL's PPO uses
(the preset `atari_cleanrl_vtrace`). The steps taken here are not agent steps: their
rewards and frames are not counted, as there.
"""

import dm_env


class AtariEpisodes(dm_env.Environment):
  """`AtariEpisodes(env, ale, action_meanings, episodic_life, fire_reset)`: `env` a dm_env
  Atari environment whose emulator is `ale` (for its lives)."""

  def __init__(self, env: dm_env.Environment, ale, action_meanings, episodic_life: bool,
               fire_reset: bool):
    self._env = env
    self._ale = ale
    self._episodic_life = episodic_life
    self._fire = fire_reset and len(action_meanings) >= 3 and action_meanings[1] == 'FIRE'
    self.frames_per_step = getattr(env, 'frames_per_step', 1)
    self.game_over = True
    self._lives = 0

  def reset(self) -> dm_env.TimeStep:
    if self.game_over:
      timestep = self._env.reset()
    else:  # A life was lost: the game goes on.
      timestep = self._env.step(0)
      if timestep.last():
        timestep = self._env.reset()
    if self._fire:
      for action in (1, 2):
        timestep = self._env.step(action)
        if timestep.last():
          timestep = self._env.reset()
    self.game_over = False
    self._lives = self._ale.lives()
    return dm_env.restart(timestep.observation)

  def step(self, action) -> dm_env.TimeStep:
    timestep = self._env.step(action)
    if timestep.last():
      self.game_over = True
      return timestep
    lives = self._ale.lives()
    lost_a_life = 0 < lives < self._lives
    self._lives = lives
    if self._episodic_life and lost_a_life:
      return dm_env.termination(timestep.reward, timestep.observation)
    return timestep

  def frame(self):
    return self._env.frame()

  def observation_spec(self):
    return self._env.observation_spec()

  def action_spec(self):
    return self._env.action_spec()

  def close(self):
    self._env.close()
