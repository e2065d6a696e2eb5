"""CartPole films (`launch.eval --video`): the cart and pole drawn from the physical
state, where the state puts them."""

import numpy as np

from seed_graph.envs import cartpole


def _pole_pixels(image):
  # The pole's colour, and nothing else in the picture has it.
  return np.argwhere(np.all(image == cartpole._POLE, axis=-1))


def _cart_columns(image):
  return np.flatnonzero(np.all(image[cartpole._TRACK_Y + 5] == 0, axis=-1))


def test_the_cart_sits_where_its_position_says_and_the_pole_leans_its_way():
  upright = cartpole.draw(0.0, 0.0, track_half_width=2.4, pole_length=1.0)
  assert upright.shape == (400, 600, 3) and upright.dtype == np.uint8
  assert abs(_cart_columns(upright).mean() - 300) < 1
  right = cartpole.draw(1.2, 0.0, track_half_width=2.4, pole_length=1.0)
  assert abs(_cart_columns(right).mean() - 450) < 1  # A quarter of the width further.
  rows, columns = _pole_pixels(upright).T
  assert abs(columns.mean() - 300) < 1 and rows.min() < cartpole._TRACK_Y - 100
  _, leaning_columns = _pole_pixels(cartpole.draw(0.0, 0.2, 2.4, 1.0)).T
  assert leaning_columns.mean() > 310  # Positive angles lean right.


def test_an_environment_frame_shows_its_state():
  env = cartpole.make_environment(None, seed=0)
  env.reset()
  for _ in range(5):
    env.step(1)
  frame = env.frame()
  assert frame.shape == (400, 600, 3) and frame.dtype == np.uint8
  assert len(_pole_pixels(frame)) > 0
  env.close()
