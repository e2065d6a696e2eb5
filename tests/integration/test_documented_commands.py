"""Every launch command in README.md and docs/ runs as written, up to the launch.

Each `seed_graph.launch.local` command is run with `--print_config` added: its flags
parse, its config file or preset loads, its overrides apply, and its program is built
and checked (environments made, spaces compared) exactly as before a launch; then it
exits. Each `launch.cluster up` that can plan without machines (Google Cloud's and
Slurm's, with `--dry_run`) and each `launch.placement` runs whole. The netns and SSH
backends have no plan-only mode: they start hosts, and test_multi_host.py and
test_ssh.py run them. What the commands then train is the learning tier's business.

As the docs say: a command that starts with `.venv/bin/python` runs at the checkout's
root; one that starts with a bare `python` runs in a directory of the user's own, with
the doc's own files in it (a ```python block whose first line is `# name.py`). An
optional part (`[--config.env.game=MsPacman]`) is added too, unless it is a placeholder
(`KEY`, `...`) or a choice (`a|b`). Each `--logdir` (and `--output`) goes to a temporary
directory, so nothing a user ran before is read.
"""

import concurrent.futures
import os
import pathlib
import re
import shlex
import subprocess
import sys
from typing import Dict, Iterator, List, Tuple

import pytest

from tests import helpers

_REPO = pathlib.Path(helpers.REPO)
_DOCS = [_REPO / 'README.md', *sorted((_REPO / 'docs').glob('**/*.md'))]
_BLOCK = re.compile(r'```[^\n]*\n(.*?)```', re.S)
_OPTIONAL = re.compile(r'\[(--[^\]]*)\]')
_RUN = re.compile(r'-m seed_graph\.launch\.(local|placement|cluster up)\b')
_STARTS_HOSTS = re.compile(r'--backend=(netns|ssh)\b')


def _concrete(optional: str) -> str:
  placeholder = '|' in optional or '...' in optional or re.search(r'=[A-Z]+\b', optional)
  return '' if placeholder else optional


def documented_commands() -> Iterator[Tuple[str, str]]:
  """(where, command line) of every command above, in the docs' order."""
  for path in _DOCS:
    text = path.read_text()
    for block in _BLOCK.finditer(text):
      where = f'{path.relative_to(_REPO)}:{text.count(chr(10), 0, block.start()) + 1}'
      for line in block.group(1).replace('\\\n', ' ').splitlines():
        if (_RUN.search(line) and not _STARTS_HOSTS.search(line)
            and not line.lstrip().startswith(('#', 'exec '))):
          line = _OPTIONAL.sub(lambda optional: _concrete(optional.group(1)), line)
          yield where, ' '.join(line.split())


def own_files(doc: str) -> Dict[str, str]:
  """The files a doc asks its reader to write: ```python blocks headed `# name.py`."""
  text = (_REPO / doc.split(':')[0]).read_text()
  files = {}
  for block in re.findall(r'```python\n(.*?)```', text, re.S):
    first = block.splitlines()[0]
    if re.fullmatch(r'# [\w/]+\.py', first):
      files[first[2:]] = block
  return files


def runnable(where: str, line: str, tmp_path: pathlib.Path) -> Tuple[List[str], str]:
  """(argv, cwd) of a documented command, as the note at the top says."""
  argv = shlex.split(line, comments=True)
  argv = argv[next(i for i, arg in enumerate(argv) if arg.endswith('python')):]
  cwd = str(_REPO)
  if argv[0] == 'python':  # In the user's own directory, seed_graph's environment active.
    cwd = str(tmp_path / 'mine')
    for name, text in own_files(where).items():
      (tmp_path / 'mine' / name).parent.mkdir(parents=True, exist_ok=True)
      (tmp_path / 'mine' / name).write_text(text)
  argv[0] = sys.executable
  for i, arg in enumerate(argv):
    flag, _, value = arg.partition('=')
    if flag in ('--logdir', '--output') and value:
      argv[i] = f'{flag}={tmp_path / "out" / os.path.basename(value)}'
  if 'seed_graph.launch.local' in argv and '--print_config' not in argv:
    argv.append('--print_config')
  if 'seed_graph.launch.cluster' in argv:
    argv.append('--dry_run')
  return argv, cwd


_COMMANDS = list(documented_commands())


def test_the_docs_have_the_commands_this_test_runs():
  launchers = {re.search(r'launch\.\w+', line).group(0) for _, line in _COMMANDS}
  assert launchers == {'launch.local', 'launch.placement', 'launch.cluster'}, launchers
  assert any(line.startswith('python ') for _, line in _COMMANDS)  # docs/own_program.md


def _run(index: int, tmp_path: pathlib.Path
         ) -> Tuple[List[str], subprocess.CompletedProcess]:
  where, line = _COMMANDS[index]
  argv, cwd = runnable(where, line, tmp_path)
  (tmp_path / 'out').mkdir(parents=True, exist_ok=True)
  return argv, subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=300,
                              check=False)


@pytest.fixture(scope='module')
def outcomes(request, tmp_path_factory):
  """The (argv, result) of every command this session runs (`-m`, `-k` select), two at a
  time: each is mostly one process importing TensorFlow and building a program, on one
  core."""
  selected = [item.callspec.params['index'] for item in request.session.items
              if item.originalname == test_a_documented_command_runs_up_to_its_launch.__name__]
  with concurrent.futures.ThreadPoolExecutor(2) as pool:
    return dict(zip(selected, pool.map(
        lambda i: _run(i, tmp_path_factory.mktemp(f'command{i}')), selected)))


def _marked(index: int, where: str, line: str):
  """A Football config's command needs gfootball to build its program."""
  marks = [pytest.mark.football] if 'football' in line else []
  return pytest.param(index, id=where, marks=marks)


@pytest.mark.parametrize('index', [_marked(i, *command) for i, command in enumerate(_COMMANDS)])
def test_a_documented_command_runs_up_to_its_launch(index, outcomes):
  where, line = _COMMANDS[index]
  argv, result = outcomes[index]
  assert result.returncode == 0, (f'{where}: {line}\nran: {shlex.join(argv)}\n'
                                  + result.stdout[-1500:] + result.stderr[-3000:])
