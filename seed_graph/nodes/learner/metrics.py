"""Progress output of a run: `metrics.jsonl` (one JSON object a line), TensorBoard
summaries and a short line on stdout, all from the same dict.

Files go through `tf.io.gfile`, so a logdir may be a local path or a bucket (`gs://...`,
for a run whose learner host may be gone; untested against a real bucket here).
"""

import json
import math
import os
import time
from typing import Optional

import tensorflow as tf


def last_record(logdir: str) -> Optional[dict]:
  """The newest line of `<logdir>/metrics.jsonl`, or None if there is none."""
  path = os.path.join(logdir, 'metrics.jsonl')
  if not tf.io.gfile.exists(path):
    return None
  last = None
  with tf.io.gfile.GFile(path) as f:
    for line in f:
      if line.strip():
        last = line
  try:
    return json.loads(last) if last else None
  except ValueError:
    return None  # A line cut short by a crash.


class MetricsWriter:

  def __init__(self, logdir: str, print_keys=('frames', 'learner_steps', 'fps',
                                              'episode_return', 'eval_episode_return')):
    tf.io.gfile.makedirs(logdir)
    self._jsonl = tf.io.gfile.GFile(os.path.join(logdir, 'metrics.jsonl'), 'a')
    self._summary = tf.summary.create_file_writer(os.path.join(logdir, 'tensorboard'))
    self._print_keys = print_keys
    self._start = time.time()

  def write(self, metrics: dict):
    """Writes `metrics` (numbers, or None for "not measured yet") at step `frames`."""
    record = {k: (None if isinstance(v, float) and math.isnan(v) else v)
              for k, v in metrics.items()}
    record.setdefault('wall_time', time.time() - self._start)
    self._jsonl.write(json.dumps(record) + '\n')
    self._jsonl.flush()  # Readers (tests, plots, the resume check) see whole lines.
    with self._summary.as_default(step=int(record.get('frames', 0))):
      for key, value in record.items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
          tf.summary.scalar(key.replace('eval_', 'eval/'), value)
    self._summary.flush()
    shown = ' '.join(f'{k}={_fmt(record[k])}' for k in self._print_keys if k in record)
    print(f'[learner] {shown}', flush=True)

  def close(self):
    self._jsonl.close()
    self._summary.close()


def _fmt(value):
  if value is None:
    return '-'
  if isinstance(value, float):
    return f'{value:.4g}'
  return str(value)


class ProgressLog:
  """Writes a learner's counters every `interval_seconds`, adding rates since the last
  line: `fps` from `frames`, `inference_mean_batch_rows` from `inference_rows` and
  `inference_batches`. `eval_episode_return` and `eval_episode_frames` are left out
  until evaluators finish an episode (a program may have none); other unmeasured values
  are written as null."""

  def __init__(self, writer: MetricsWriter, interval_seconds: float, frames: int):
    self._writer = writer
    self._interval = interval_seconds
    self._last_time = time.time()
    self._last = {'frames': frames, 'inference_rows': 0, 'inference_batches': 0}

  def due(self) -> bool:
    return time.time() - self._last_time >= self._interval

  def write(self, record: dict):
    now = time.time()
    record = dict(record)
    for key in ('eval_episode_return', 'eval_episode_frames'):
      if record.get(key) is None:
        record.pop(key, None)
    delta = {k: record[k] - self._last[k] for k in self._last}
    record['fps'] = delta['frames'] / max(now - self._last_time, 1e-6)
    record['inference_mean_batch_rows'] = (
        delta['inference_rows'] / delta['inference_batches']
        if delta['inference_batches'] else None)
    self._writer.write(record)
    self._last_time = now
    self._last = {k: record[k] for k in self._last}
