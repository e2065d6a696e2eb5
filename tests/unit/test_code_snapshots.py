"""The frozen copy of the committed code a long run trains from (`atari_suite
--frozen_code`): HEAD's files, made once, untouched by later edits of the checkout."""

import os
import subprocess

import pytest

from benchmarks import code_snapshots


def test_a_frozen_copy_holds_heads_files_and_is_made_once(tmp_path):
  if subprocess.run(['git', 'rev-parse', '--verify', 'HEAD'], cwd=code_snapshots.REPO,
                    capture_output=True).returncode:
    pytest.skip('a frozen copy is of a git checkout\'s HEAD; this is none')
  commit, tree = code_snapshots.frozen_head(str(tmp_path))
  head = subprocess.run(['git', 'show', 'HEAD:seed_graph/launch/local.py'],
                        cwd=code_snapshots.REPO, capture_output=True, text=True, check=True)
  with open(os.path.join(tree, 'seed_graph', 'launch', 'local.py')) as f:
    assert f.read() == head.stdout
  assert os.path.basename(tree) == commit and not os.path.exists(tree + '.partial')
  marker = os.path.join(tree, 'left_alone')
  open(marker, 'w').close()
  assert code_snapshots.frozen_head(str(tmp_path)) == (commit, tree)
  assert os.path.exists(marker)  # Not made again.
