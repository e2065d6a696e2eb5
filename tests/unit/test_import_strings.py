"""What a module named by string (`--program`, `env.factory`, `config.algorithm`) does
when it cannot be imported: one line naming the flag or key, the module and where."""

import sys

import pytest

from seed_graph.config import import_strings
from seed_graph.config.schema import ConfigError
from seed_graph.programs import registry


@pytest.fixture
def modules(tmp_path, monkeypatch):
  monkeypatch.syspath_prepend(str(tmp_path))
  def write(name, text):
    path = tmp_path.joinpath(*name.split('.')).with_suffix('.py')
    path.parent.mkdir(parents=True, exist_ok=True)
    for package in path.parents:
      if package == tmp_path:
        break
      (package / '__init__.py').touch()
    path.write_text(text)
    for loaded in [m for m in sys.modules if m == name or name.startswith(m + '.')]:
      sys.modules.pop(loaded)
  return write


@pytest.mark.parametrize('text, message', [
    ('def make_program(config)\n  return None\n',
     "--program=broken:make_program: 'broken' does not parse: "),  # Python's own words.
    ('raise RuntimeError("no GPU here")\n',
     "--program=broken:make_program: importing 'broken' raised RuntimeError: no GPU here ("),
    ('import a_module_nobody_has\n',
     "--program=broken:make_program: cannot import 'broken' (No module named "
     "'a_module_nobody_has')"),
    ('x = 1\n', "--program=broken:make_program: 'broken' has no function 'make_program'"),
])
def test_a_program_that_cannot_be_had_is_one_line(modules, text, message):
  modules('broken', text)
  with pytest.raises(ValueError) as error:
    import_strings.resolve('broken:make_program', '--program=broken:make_program')
  assert str(error.value).startswith(message) and '\n' not in str(error.value)
  if 'line' in str(error.value):
    assert 'broken.py, line 1)' in str(error.value)


def test_an_algorithm_of_ones_own_that_cannot_be_had_is_one_line(modules):
  modules('mine.broken_algorithm', 'raise KeyError("oops")\n')
  with pytest.raises(ConfigError, match="^algorithm: importing 'mine.broken_algorithm' "
                                        'raised KeyError: '):
    registry.algorithm_builder('mine.broken_algorithm')
  modules('mine.no_builder', 'x = 1\n')
  with pytest.raises(ConfigError, match='^algorithm: mine.no_builder has no BUILDER'):
    registry.algorithm_builder('mine.no_builder')
