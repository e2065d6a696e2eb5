"""Committed code exported to a directory of its own (`git archive`): the revisions the
end-to-end comparisons run side by side, and the frozen copy a long Atari run trains
from while the checkout is edited."""

import os
import subprocess
from typing import Tuple

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def export(revision: str, directory: str) -> None:
  """The files of `revision` (committed) into `directory`."""
  archive = subprocess.run(['git', 'archive', revision], cwd=REPO, check=True,
                           capture_output=True).stdout
  subprocess.run(['tar', '-x', '-C', directory], input=archive, check=True)


def frozen_head(root: str) -> Tuple[str, str]:
  """(HEAD's short commit, `<root>/<commit>`: a copy of its files, made once). Node
  processes started from the copy (a run's first start, its restarts after a crash or a
  planned restart) run that commit whatever the checkout holds meanwhile."""
  commit = subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], cwd=REPO, check=True,
                          capture_output=True, text=True).stdout.strip()
  directory = os.path.join(root, commit)
  if not os.path.isdir(directory):
    partial = directory + '.partial'
    os.makedirs(partial, exist_ok=True)
    export(commit, partial)
    os.rename(partial, directory)  # Whole or not at all.
  return commit, directory
