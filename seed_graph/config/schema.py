"""Config keys, each declared once: its default, type, documentation and check.

A config is an `ml_collections.ConfigDict`: top-level keys and sections of keys. Every
leaf is declared by the module that uses it, as a `Key` in a dict of keys (a `Schema`;
a section is a nested dict), and nowhere else:

    ACTORS = {'num': Key(2, 'Actor processes.', positive)}

`seed_graph.programs.registry` assembles a program's schema from those of its parts
(the keys every program has, the environment's, the algorithm's). From a schema:
`defaults` builds a config, `check` validates one (unknown and missing keys, types,
each key's own check), `complete` adds keys a config written before they existed lacks
(as their defaults, which behave as their absence did), `apply_override` parses one
`KEY=VALUE` from a command line (the one parser every launcher uses), `describe` lists
keys, values and documentation, and `fixed_changes` lists changes a resumed logdir's
checkpoint cannot take.

This module imports nothing of the project, so any layer may declare keys with it.
"""

import ast
import dataclasses
import difflib
import math
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

import ml_collections


class ConfigError(ValueError):
  """A bad config; the message starts with the dotted key at fault."""


Check = Callable[[Any], Optional[str]]  # A value -> what is wrong with it, or None.


@dataclasses.dataclass(frozen=True)
class Key:
  """One config key. `kind` is the value's type (default: the default's); `fixed`: the
  key shapes a checkpoint or a replay, so a resumed logdir must keep its value."""
  default: Any
  doc: str
  check: Optional[Check] = None
  fixed: bool = False
  kind: Optional[type] = None

  @property
  def type(self) -> type:
    kind = self.kind or type(self.default)
    return dict if issubclass(kind, (dict, ml_collections.ConfigDict)) else kind

  def error(self, value) -> Optional[str]:
    """What is wrong with `value` for this key (type, then its own check), or None."""
    kind = self.type
    if value is None and self.default is None:
      return None
    if kind is float:
      if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f'expected a number, got {value!r}'
      if not math.isfinite(value):
        return f'must be a finite number, got {value!r}'
    elif kind is int:
      if isinstance(value, bool) or not isinstance(value, int):
        return f'expected an integer, got {value!r}'
    elif kind is tuple:
      if not isinstance(value, (tuple, list)):
        return f'expected a tuple, got {value!r}'
    elif kind is dict:
      if not hasattr(value, 'keys'):
        return f'expected a dict, got {value!r}'
    elif not isinstance(value, kind):
      return f'expected {kind.__name__}, got {value!r}'
    return self.check(value) if self.check else None

  def parse(self, text: str):
    """The value a command line's `KEY=text` means for this key."""
    kind = self.type
    if kind is bool:
      if text.lower() in ('true', '1', 'yes'):
        return True
      if text.lower() in ('false', '0', 'no'):
        return False
      raise ValueError(f'expected true or false, got {text!r}')
    if kind is int:
      return int(text)
    if kind is float:
      return float(text)
    if kind is str:
      return text
    value = ast.literal_eval(text)
    if kind is tuple and isinstance(value, (int, float)):
      value = (value,)
    if kind is tuple and isinstance(value, list):
      value = tuple(value)
    return value


Schema = Dict[str, Union[Key, 'Schema']]


# ---- Checks ---------------------------------------------------------------------------

def positive(value) -> Optional[str]:
  return None if value > 0 else f'must be positive, got {value}'


def non_negative(value) -> Optional[str]:
  return None if value >= 0 else f'must be >= 0, got {value}'


def in_range(low: float, high: float) -> Check:
  def check(value):
    return None if low <= value <= high else f'must be in [{low:g}, {high:g}], got {value}'
  return check


def one_of(*choices) -> Check:
  def check(value):
    return None if value in choices else f'expected one of {choices}, got {value!r}'
  return check


def positive_ints(value) -> Optional[str]:
  if all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value):
    return None
  return f'expected positive integers, got {tuple(value)}'


# ---- Schemas --------------------------------------------------------------------------

def flat(schema: Schema, prefix: str = '') -> Dict[str, Key]:
  """{'learner.batch_size': Key, ...}: every key of a schema, dotted."""
  keys = {}
  for name, entry in schema.items():
    if isinstance(entry, Key):
      keys[prefix + name] = entry
    else:
      keys.update(flat(entry, f'{prefix}{name}.'))
  return keys


def defaults(schema: Schema) -> ml_collections.ConfigDict:
  """A config holding every key's default."""
  config = ml_collections.ConfigDict()
  for name, entry in schema.items():
    if isinstance(entry, Key):
      default = entry.default
      config[name] = (ml_collections.ConfigDict(default) if isinstance(default, dict)
                      else default)
    else:
      config[name] = defaults(entry)
  return config


def _lookup(config: ml_collections.ConfigDict, dotted: str):
  value = config
  for part in dotted.split('.'):
    value = value[part]
  return value


def _closest(key: str, known) -> str:
  close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.6)
  return f'; did you mean {close[0]}?' if close else ''


def check(config: ml_collections.ConfigDict, schema: Schema, prefix: str = '') -> None:
  """Raises ConfigError at the first unknown, missing, mistyped or invalid key."""
  present = set(config.keys())
  for name in sorted(present - set(schema)):
    known = ' (known here: ' + ', '.join(sorted(schema)) + ')'
    raise ConfigError(f'{prefix}{name}: unknown config key{_closest(name, schema) or known}')
  for name in sorted(set(schema) - present):
    raise ConfigError(f'{prefix}{name}: missing from the config')
  for name, entry in schema.items():
    value = config[name]
    if isinstance(entry, Key):
      error = entry.error(value)
      if error:
        raise ConfigError(f'{prefix}{name}: {error}')
    elif not hasattr(value, 'keys'):
      raise ConfigError(f'{prefix}{name}: expected a config section, got {value!r}')
    else:
      check(value, entry, f'{prefix}{name}.')


def complete(config: ml_collections.ConfigDict, schema: Schema) -> List[str]:
  """Adds every declared key `config` lacks, as its default (a config written before
  the key existed behaves as the default does); returns the dotted keys added."""
  added = []
  for dotted, key in flat(schema).items():
    parent = config
    parts = dotted.split('.')
    for part in parts[:-1]:
      if part not in parent:
        parent[part] = ml_collections.ConfigDict()
      parent = parent[part]
    if parts[-1] not in parent:
      default = key.default
      parent[parts[-1]] = (ml_collections.ConfigDict(default) if isinstance(default, dict)
                           else default)
      added.append(dotted)
  return added


def apply_override(config: ml_collections.ConfigDict, schema: Schema,
                   override: str) -> None:
  """Sets `KEY=VALUE` (the text after `--config.`) in `config`, parsed as the key's
  declared type; raises ConfigError naming the key."""
  dotted, sep, text = override.partition('=')
  keys = flat(schema)
  if not sep:
    raise ConfigError(f'{dotted}: expected --config.{dotted}=VALUE')
  if dotted not in keys:
    free = [k for k, v in keys.items() if v.type is dict and dotted.startswith(k + '.')]
    if not free:
      raise ConfigError(f'{dotted}: no such key{_closest(dotted, keys)}')
    value = ast.literal_eval(text) if text[:1] in '([{\'"0123456789-' else text
  else:
    try:
      value = keys[dotted].parse(text)
    except (ValueError, SyntaxError) as error:
      if keys[dotted].type in (int, float):  # Python's own words name neither.
        kind = keys[dotted].type.__name__
        raise ConfigError(f'{dotted}: {text!r} is not {_article(kind)} {kind}') from None
      raise ConfigError(f'{dotted}: {error}') from None
  *path, leaf = dotted.split('.')
  parent = config
  for part in path:
    parent = parent[part]
  with parent.ignore_type():
    parent[leaf] = value


def _article(word: str) -> str:
  return 'an' if word[:1] in 'aeiou' else 'a'


def describe(config: ml_collections.ConfigDict, schema: Schema) -> str:
  """Every key as `key = value  # documentation`, one a line, sections in order."""
  keys = flat(schema)
  rows = [(dotted, repr(_comparable(_lookup(config, dotted))), key.doc)
          for dotted, key in keys.items()]
  width = min(48, max(len(f'{k} = {v}') for k, v, _ in rows))
  return '\n'.join(f'{f"{k} = {v}":<{width}}  # {doc}' for k, v, doc in rows)


def fixed_changes(old, new, schema: Schema) -> Tuple[List[str], List[str]]:
  """(changes of `fixed` keys, other changes) from config `old` to config `new` (nested
  dicts or ConfigDicts), each as 'key: old -> new'. A declared key that a side lacks
  counts as its default there; keys no longer declared are not compared."""
  fixed, other = [], []
  for dotted, key in flat(schema).items():
    before, after = _get(old, dotted, key.default), _get(new, dotted, key.default)
    if _comparable(before) != _comparable(after):
      change = f'{dotted}: {_comparable(before)!r} -> {_comparable(after)!r}'
      (fixed if key.fixed else other).append(change)
  return fixed, other


def _get(config: ml_collections.ConfigDict, dotted: str, default):
  value = config
  for part in dotted.split('.'):
    if not hasattr(value, 'keys') or part not in value:
      return default
    value = value[part]
  return value


def _comparable(value):
  if isinstance(value, list):
    return tuple(value)
  if hasattr(value, 'items'):
    return {k: _comparable(v) for k, v in value.items()}
  return value
