"""Functions named by import string, 'package.module:function' (`env.factory`,
`launch.local --program`), imported from the directory the launcher runs in."""

import importlib
from typing import Callable


def resolve(spec: str, source: str) -> Callable:
  """The function `spec` names; ValueError in one line starting with `source` (the key or
  flag that gave it) if it cannot be had."""
  if not isinstance(spec, str) or spec.count(':') != 1 or not all(spec.split(':')):
    raise ValueError(f"{source}: expected 'package.module:function', got {spec!r}")
  module_name, function_name = spec.split(':')
  try:
    module = importlib.import_module(module_name)
  except ImportError as error:
    raise ValueError(f'{source}: cannot import {module_name!r} ({error}); it must be '
                     'importable from the directory you launch in') from None
  function = getattr(module, function_name, None)
  if not callable(function):
    raise ValueError(f'{source}: {module_name!r} has no function {function_name!r}')
  return function
