"""A config as a documented table: every key, its value, and the comment written beside
it in the config file (or in the config modules that file builds on).

`--print_config` of `launch.local` prints it:

  learner.batch_size = 32                 # Unrolls per training step.
  learner.unroll_length = 5               # Agent steps per unroll (unrolls hold one more).

A comment is the one on the line that sets the key, with the comment-only lines right
under it; the config file's own comments win over those of the modules it imports (an
Atari config's `onednn` comment over CartPole's).
"""

import ast
import json
import os
import re
from typing import Dict, List

import ml_collections

from launch import config_args

# `a.b = value  # comment`, or a dict literal's `'key': value,  # comment`.
_ASSIGNMENT = re.compile(r'^\s*(?:([A-Za-z_][\w.]*)\s*=[^=]|\'(\w+)\':).*?#\s?(.*)$')
_CONTINUATION = re.compile(r'^\s*#\s?(.*)$')


def _comments_in(path: str) -> Dict[str, str]:
  """{assigned name chain without a leading `config.`: comment} of one file."""
  comments, last = {}, None
  with open(path) as f:
    for line in f:
      match = _ASSIGNMENT.match(line)
      if match:
        last = re.sub(r'^config\.', '', match.group(1) or match.group(2))
        comments[last] = match.group(3).strip()
        continue
      continuation = _CONTINUATION.match(line)
      if continuation and last is not None:
        comments[last] += ' ' + continuation.group(1).strip()
      else:
        last = None
  return comments


def _config_modules(path: str) -> List[str]:
  """`path` and the sibling modules it imports (`from configs import x`), the imported
  ones first, recursively."""
  directory = os.path.dirname(os.path.abspath(path))
  with open(path) as f:
    tree = ast.parse(f.read())
  names = []
  for node in ast.walk(tree):
    if isinstance(node, ast.ImportFrom) and node.module in ('configs', None):
      names += [alias.name for alias in node.names]
  modules = []
  for name in names:
    sibling = os.path.join(directory, name + '.py')
    if os.path.exists(sibling):
      modules += [m for m in _config_modules(sibling) if m not in modules]
  return modules + [os.path.abspath(path)]


def key_comments(config_path: str) -> Dict[str, str]:
  comments = {}
  for module in _config_modules(config_path):
    comments.update(_comments_in(module))
  return comments


def _comment_for(key: str, comments: Dict[str, str]) -> str:
  if key in comments:
    return comments[key]
  # A section built by a helper that names it differently (`env.game` set on `env`).
  for chain, comment in comments.items():
    if key.endswith('.' + chain):
      return comment
  return ''


def documented(config: ml_collections.ConfigDict, config_path: str) -> str:
  """The table (see the module docstring)."""
  comments = key_comments(config_path)
  lines = []
  for key, value in config_args.flat_keys(json.loads(config.to_json())).items():
    setting = f'{key} = {value!r}'
    comment = _comment_for(key, comments)
    lines.append(f'{setting:<44} # {comment}' if comment else setting)
  return '\n'.join(lines)
