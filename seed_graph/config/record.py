"""`<logdir>/config.json`: the config a run trains with, kept in its logdir, so that the
run can be resumed and compared (`launch.local`), evaluated (`launch.eval`) and plotted
(`launch.plot`) from its logdir alone.

The launcher records each launch's config before any node starts (`record`: the one
before moves to `config.previous.json`). Each learner node records its own config as it
starts if its logdir has none (`record_if_absent`): for a program's only learner that is
the launcher's file already; for a learner with a logdir of its own, such as a
population member's `<logdir>/member_<k>`, it is that learner's one record.
"""

import os

import ml_collections

FILE = 'config.json'
PREVIOUS_FILE = 'config.previous.json'


def record(config: ml_collections.ConfigDict) -> None:
  """Writes `config` to `<config.logdir>/config.json`, keeping the previous one."""
  path = os.path.join(config.logdir, FILE)
  if os.path.exists(path):
    os.replace(path, os.path.join(config.logdir, PREVIOUS_FILE))
  _write(config, path)


def record_if_absent(config: ml_collections.ConfigDict) -> bool:
  """Writes `config` to `<config.logdir>/config.json` unless there is one; whether it
  wrote."""
  path = os.path.join(config.logdir, FILE)
  if os.path.exists(path):
    return False
  _write(config, path)
  return True


def _write(config: ml_collections.ConfigDict, path: str) -> None:
  os.makedirs(os.path.dirname(path), exist_ok=True)
  # Written whole, then renamed: a reader never sees half a file.
  with open(path + '.tmp', 'w') as f:
    f.write(config.to_json(indent=2) + '\n')
  os.replace(path + '.tmp', path)
