"""CartPole-v1 (gymnasium's classic control), 500-step episodes, drawn for films.

Gymnasium draws CartPole with pygame, which this project does not install; `frame()`
draws the cart and pole from the physical state with OpenCV instead (no display).
"""

import math

import cv2
import gymnasium
import numpy as np
import ml_collections

from seed_graph.envs import gym_adapter


KEYS = {}  # CartPole-v1 has no settings.

_WIDTH, _HEIGHT = 600, 400          # Pixels; the track spans the whole width.
_TRACK_Y = 300                      # The cart's axle height, from the top.
_CART_HALF_WIDTH, _CART_HALF_HEIGHT = 25, 15
_POLE_WIDTH = 10
_BLACK, _POLE, _AXLE = (0, 0, 0), (202, 152, 101), (129, 132, 203)


def validate_config(env_config: ml_collections.ConfigDict):
  del env_config  # CartPole has no settings.


def draw(cart_position: float, pole_angle: float, track_half_width: float,
         pole_length: float) -> np.ndarray:
  """An RGB `uint8 [400, 600, 3]` picture: the track, the cart at `cart_position` and
  the pole at `pole_angle` (radians from upright, positive to the right); lengths in the
  environment's units, `track_half_width` the position at which an episode ends."""
  scale = _WIDTH / (2 * track_half_width)
  image = np.full((_HEIGHT, _WIDTH, 3), 255, np.uint8)
  ground = _TRACK_Y + _CART_HALF_HEIGHT
  cv2.line(image, (0, ground), (_WIDTH, ground), _BLACK, 1)
  x = int(round(_WIDTH / 2 + cart_position * scale))
  cv2.rectangle(image, (x - _CART_HALF_WIDTH, _TRACK_Y - _CART_HALF_HEIGHT),
                (x + _CART_HALF_WIDTH, _TRACK_Y + _CART_HALF_HEIGHT), _BLACK, -1)
  pixels = pole_length * scale
  tip = (int(round(x + pixels * math.sin(pole_angle))),
         int(round(_TRACK_Y - pixels * math.cos(pole_angle))))
  cv2.line(image, (x, _TRACK_Y), tip, _POLE, _POLE_WIDTH)
  cv2.circle(image, (x, _TRACK_Y), _POLE_WIDTH // 2, _AXLE, -1)
  return image


class CartPole(gym_adapter.GymnasiumEnv):
  """Gymnasium's CartPole-v1 with a `frame()` of its own."""

  def frame(self) -> np.ndarray:
    physics = self._env.unwrapped
    cart_position, _, pole_angle, _ = physics.state
    # Gymnasium's `length` is half the pole's.
    return draw(cart_position, pole_angle, physics.x_threshold, 2 * physics.length)


def make_environment(env_config: ml_collections.ConfigDict, seed: int) -> CartPole:
  del env_config
  return CartPole(gymnasium.make('CartPole-v1'), seed)
