"""An experiment's config as the launchers take it: a preset or a config file plus
`--config.KEY=VALUE` overrides, and the copy every launch keeps in its logdir.

`--config` names a preset of `seed_graph.configs` by its module name
(`--config=cartpole_vtrace`, from any directory, installed or not) or a file of one's own
by a path ending in `.py`. `load(path, overrides)` runs the file's `get_config()` and
applies the overrides with the one parser of the project
(`seed_graph.config.schema.apply_override`: each value parsed as its key's declared
type); every launcher (`local`, `placement`, `host`,
`cluster`, `program_graph`) goes through it. An unknown key, a bad value or a missing
file is a `ConfigError` of one line naming it.

Every launch records its config in `<logdir>/config.json` (`seed_graph.config.record`;
an earlier launch's moves to `config.previous.json`); `changes_since_last_launch` compares a
resumed run's config with it: changed keys declared `fixed` (they shape the checkpoint
or the replay) fail the launch, others are listed. `logdir_config` reads a run's config
back, completed with keys declared since it was written.
"""

import difflib
import json
import os
import runpy
from typing import Callable, List, Optional, Sequence, Tuple

from absl import flags
import ml_collections

from seed_graph.config import record as config_record
from seed_graph.config import schema as config_schema
from seed_graph import configs
from seed_graph.config.schema import ConfigError
from seed_graph.programs import registry

_PREFIX = '--config.'


def take_overrides(argv: Sequence[str], overrides: List[str]) -> List[str]:
  """Appends the `KEY=VALUE` of every `--config.KEY=VALUE` in `argv` to `overrides`;
  returns the other arguments (for absl's flag parser)."""
  overrides.extend(a[len(_PREFIX):] for a in argv if a.startswith(_PREFIX))
  return [a for a in argv if not a.startswith(_PREFIX)]


def flags_parser(overrides: List[str]) -> Callable[[List[str]], List[str]]:
  """An absl `flags_parser` for `app.run` that first takes every `--config.KEY=VALUE`
  out of argv into `overrides` (absl would refuse them as unknown flags)."""
  def parse(argv: Sequence[str]):
    return flags.FLAGS(take_overrides(argv, overrides))
  return parse


PRESETS_DIR = os.path.dirname(os.path.abspath(configs.__file__))


def presets() -> List[str]:
  """The names `--config` takes for the shipped presets."""
  return sorted(name[:-len('.py')] for name in os.listdir(PRESETS_DIR)
                if name.endswith('.py') and not name.startswith('_'))


def config_file(spec: str) -> str:
  """The file that `--config=spec` names: `spec` itself if it ends in `.py`, else the
  preset `seed_graph/configs/<spec>.py`. ConfigError (one line) if there is none."""
  if not spec:
    raise ConfigError('--config: no config given (a preset, e.g. --config=cartpole_vtrace, '
                      'or a file ending in .py)')
  if spec.endswith('.py'):
    if os.path.isfile(spec):
      return spec
    moved = os.path.basename(spec)[:-len('.py')]
    hint = f' (the preset is --config={moved})' if moved in presets() else ''
    raise ConfigError(f'--config={spec}: no such file{hint}')
  if spec in presets():
    return os.path.join(PRESETS_DIR, spec + '.py')
  close = difflib.get_close_matches(spec, presets(), n=1)
  hint = f'did you mean {close[0]}? ' if close else ''
  raise ConfigError(f'--config={spec}: no preset of that name; {hint}presets: '
                    f'{", ".join(presets())}; a config file\'s path ends in .py')


def setting_name(spec: str) -> str:
  """`spec` as runs are compared by: a preset's name however it was named (its name, or
  a path to `<folder>/configs/<name>.py`, where presets lived before they moved into the
  package), else the path as given."""
  folder, file = os.path.split(os.path.normpath(spec))
  name = file[:-len('.py')] if file.endswith('.py') else file
  if name in presets() and (file == name or os.path.basename(folder) == 'configs'):
    return name
  return spec


def _first(overrides: Sequence[str], key: str) -> Optional[str]:
  values = [o.partition('=')[2] for o in overrides if o.partition('=')[0] == key]
  return values[-1] if values else None


def load(path: str, overrides: Sequence[str] = (),
         program_keys: Optional[config_schema.Schema] = None) -> ml_collections.ConfigDict:
  """The `get_config()` of the preset or file `path` names (`config_file`), with
  `overrides` applied and checked key by key (the program's joint checks run when it is
  built). `program_keys`: the sections a
  program of one's own declares; the file may leave them out (their defaults apply)."""
  get_config = runpy.run_path(config_file(path)).get('get_config')
  if not callable(get_config):
    raise ConfigError(f'--config={path}: the file defines no get_config()')
  config = get_config()
  algorithm, env_name = _first(overrides, 'algorithm'), _first(overrides, 'env.name')
  if algorithm is not None:
    config.algorithm = algorithm
  if env_name is not None and env_name != config.env.name:
    # Another environment: its own keys, at their defaults.
    config.env = registry.default_config(config.algorithm, env_name).env
  schema = registry.schema(config, program_keys)
  config_schema.complete(config, program_keys or {})
  for override in overrides:
    try:
      config_schema.apply_override(config, schema, override)
    except ConfigError as error:
      raise ConfigError(f'{_PREFIX}{error} (in {path})') from None
  config_schema.check(config, schema)
  return config


def make_logdir(logdir: str) -> None:
  """Creates `logdir` if needed; ConfigError (one line) if it cannot hold a run. A
  bucket (`gs://...`) is left to TensorFlow's file system."""
  if '://' in logdir:
    return
  if os.path.exists(logdir) and not os.path.isdir(logdir):
    raise ConfigError(f'--logdir={logdir}: is a file, not a directory')
  try:
    os.makedirs(logdir, exist_ok=True)
  except OSError as error:
    # The nearest folder that exists is where it failed (/proc, a read-only mount...).
    parent = os.path.dirname(os.path.abspath(logdir))
    while not os.path.isdir(parent):
      parent = os.path.dirname(parent)
    raise ConfigError(f'--logdir={logdir}: cannot be created in {parent} '
                      f'({error.strerror})') from None
  if not os.access(logdir, os.W_OK | os.X_OK):
    raise ConfigError(f'--logdir={logdir}: is not writable')


def changes_since_last_launch(config: ml_collections.ConfigDict,
                              program_keys: Optional[config_schema.Schema] = None
                              ) -> Tuple[List[str], List[str]]:
  """(changes a checkpoint cannot take, other changes) against `<logdir>/config.json`,
  each 'key: old -> new'; both empty for a new logdir."""
  path = os.path.join(config.logdir, config_record.FILE)
  if not os.path.exists(path):
    return [], []
  with open(path) as f:
    old = json.load(f)
  return config_schema.fixed_changes(old, json.loads(config.to_json()),
                                     registry.schema(config, program_keys))


def logdir_config(logdir: str) -> ml_collections.ConfigDict:
  """The config a run in `logdir` was launched with (`config.json`), with every key
  declared since then at its default."""
  path = os.path.join(logdir, config_record.FILE)
  with open(path) as f:
    config = ml_collections.ConfigDict(json.load(f))
  config_schema.complete(config, registry.schema(config))
  config.logdir = logdir
  return config
