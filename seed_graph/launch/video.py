"""MP4 films of episodes, one frame at a time (OpenCV's own FFmpeg; no other package)."""

import os

import cv2
import numpy as np


class VideoWriter:
  """`add(rgb)` appends an RGB `uint8 [H, W, 3]` frame; `close()` finishes the file. The
  first frame fixes the size. Frames are written as they come, so a long episode is
  never held in memory."""

  def __init__(self, path: str, frames_per_second: float):
    self.path = path
    self._fps = frames_per_second
    self._writer = None
    self.frames = 0

  def add(self, rgb: np.ndarray):
    if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.dtype != np.uint8:
      raise ValueError(f'a video frame must be uint8 [H, W, 3], not {rgb.dtype} '
                       f'{list(rgb.shape)}')
    if self._writer is None:
      os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
      height, width = rgb.shape[:2]
      self._writer = cv2.VideoWriter(self.path, cv2.VideoWriter_fourcc(*'mp4v'),
                                     self._fps, (width, height))
      if not self._writer.isOpened():
        raise OSError(f'OpenCV cannot write an MP4 video to {self.path}')
    self._writer.write(cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR))
    self.frames += 1

  def close(self):
    if self._writer is not None:
      self._writer.release()
      self._writer = None
