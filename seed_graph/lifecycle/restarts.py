"""How often the launchers have restarted each group's crashed nodes, kept in the logdir.

Each supervising launcher writes its own file, replacing it whole on each restart:
`launch.local` writes `<logdir>/restarts.json`, the agent of host H of a multi-host run
`<logdir>/restarts-H.json`, e.g. `{"actor": 3, "waiting": {"actor": 1}}` (three restarts,
one actor now waiting for its next). The learner adds the counts of every file to its
metrics lines as `restarts_<group>` and `waiting_<group>`. Files, because the learner may
itself be the node that was restarted, and the counts outlive any one process (a launcher
started again on the same logdir counts on from its file). Across hosts, the learner sees
another host's counts when the logdir is shared (a bucket, or one machine's namespaces).
"""

import collections
import json
import os
from typing import Dict, Optional

import tensorflow as tf

FILE_NAME = 'restarts.json'
WAITING = 'waiting'  # The file's key of the nodes waiting to restart, by group.


def path(logdir: str, host: Optional[str] = None) -> str:
  """The file of the launcher on `host` (None: the single-machine launcher)."""
  return os.path.join(logdir, FILE_NAME if host is None else f'restarts-{host}.json')


def write(logdir: str, counts: Dict[str, int], host: Optional[str] = None,
          waiting: Optional[Dict[str, int]] = None):
  """`counts`: restarts by group; `waiting`: nodes by group now waiting to restart."""
  target = path(logdir, host)
  with tf.io.gfile.GFile(target + '.tmp', 'w') as f:  # A local path or a bucket.
    json.dump(dict(counts, **({WAITING: waiting} if waiting else {})), f)
  # Readers see the old counts or the new, never half.
  tf.io.gfile.rename(target + '.tmp', target, overwrite=True)


def _read_file(file_path: str) -> dict:
  try:
    with tf.io.gfile.GFile(file_path) as f:
      return json.load(f)
  except (OSError, ValueError, tf.errors.NotFoundError):
    return {}


def read_counts(file_path: str) -> Dict[str, int]:
  """One launcher's restart counts by group; {} if it has restarted nothing yet."""
  try:
    return {group: int(count) for group, count in _read_file(file_path).items()
            if group != WAITING}
  except (ValueError, TypeError, AttributeError):
    return {}


def read(logdir: str) -> Dict[str, int]:
  """Every launcher's counts summed, as metrics keys (`restarts_actor`, ...); {} before
  any restart."""
  try:
    files = tf.io.gfile.glob(os.path.join(logdir, 'restarts*.json'))
  except tf.errors.OpError:
    return {}
  totals, waiting = collections.Counter(), collections.Counter()
  for file_path in files:
    totals.update(read_counts(file_path))
    nodes = _read_file(file_path).get(WAITING)
    waiting.update(nodes if isinstance(nodes, dict) else {})
  stats = {f'restarts_{group}': count for group, count in sorted(totals.items())}
  stats.update({f'waiting_{group}': count for group, count in sorted(waiting.items())
                if count})
  return stats
