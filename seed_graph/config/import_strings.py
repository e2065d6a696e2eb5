"""Modules and functions named by string: 'package.module:function' (`env.factory`,
`launch.local --program`) or a module (`config.algorithm` of one's own), imported from
the directory the launcher runs in. Whatever importing them raises (a missing module, a
syntax error, an exception in the module's own code) is one line naming where."""

import importlib
import traceback
from types import ModuleType
from typing import Callable


def import_module(module_name: str, source: str) -> ModuleType:
  """The module; ValueError in one line starting with `source` (the key or flag that
  named it) if importing it fails."""
  try:
    return importlib.import_module(module_name)
  except ImportError as error:
    raise ValueError(f'{source}: cannot import {module_name!r} ({error}); it must be '
                     'importable from the directory you launch in') from None
  except SyntaxError as error:
    raise ValueError(f'{source}: {module_name!r} does not parse: {error.msg} '
                     f'({error.filename}, line {error.lineno})') from None
  except Exception as error:  # pylint: disable=broad-except
    where = traceback.extract_tb(error.__traceback__)[-1]
    raise ValueError(f'{source}: importing {module_name!r} raised '
                     f'{type(error).__name__}: {error} ({where.filename}, line '
                     f'{where.lineno})') from None


def resolve(spec: str, source: str) -> Callable:
  """The function `spec` names; ValueError in one line starting with `source` (the key or
  flag that gave it) if it cannot be had."""
  if not isinstance(spec, str) or spec.count(':') != 1 or not all(spec.split(':')):
    raise ValueError(f"{source}: expected 'package.module:function', got {spec!r}")
  module_name, function_name = spec.split(':')
  module = import_module(module_name, source)
  function = getattr(module, function_name, None)
  if not callable(function):
    raise ValueError(f'{source}: {module_name!r} has no function {function_name!r}')
  return function
