"""`--program=module:function`: an experiment of one's own, as a Launchpad program.

The function takes the (checked) config and returns an `lp.Program`; its module is
imported from the directory the launcher runs in, as `env.factory` is, and so is it in
every node process. `seed_graph` re-exports the building blocks such a program needs
(`LearnerNode`, `add_actors_and_evaluators`, `ReplayNode`, the algorithms): see
docs/architecture.md, "A program or algorithm of your own". Without `--program` the
config's `algorithm` names a built-in program. Anything that is not such a function, or
a function that returns no program, fails before launch in one line.
"""

import inspect
import os
import sys
from typing import Callable, List, Optional

import launchpad as lp
import ml_collections

from seed_graph.config import schema as config_schema
from seed_graph.config import import_strings
from seed_graph.config.schema import ConfigError
from seed_graph.nodes.learner import node as learner_node
from seed_graph.programs import central_inference
from seed_graph.programs import registry


def _function(spec: str) -> Callable:
  if os.getcwd() not in sys.path:
    sys.path.insert(0, os.getcwd())  # As `python -m` does for its own directory.
  try:
    function = import_strings.resolve(spec, f'--program={spec}')
  except ValueError as error:
    raise ConfigError(str(error)) from None
  try:
    inspect.signature(function).bind(None)
  except TypeError:
    raise ConfigError(f'--program={spec}: {function.__name__}{inspect.signature(function)} '
                      'cannot be called with the config alone') from None
  except ValueError:
    pass  # No signature to read (a builtin): it is called as it is.
  return function


def config_keys(spec: Optional[str]) -> config_schema.Schema:
  """The config sections the program's module declares beside its function
  (`CONFIG_KEYS`: {section: {name: seed_graph.Key}}), {} for none or a built-in
  program. They are checked, overridden (`--config.section.name=...`) and documented
  (`--print_config`) as the built-in keys are."""
  if not spec:
    return {}
  keys = getattr(sys.modules[_function(spec).__module__], 'CONFIG_KEYS', {})
  if not isinstance(keys, dict) or not all(isinstance(v, dict) for v in keys.values()):
    raise ConfigError(f'--program={spec}: CONFIG_KEYS must map section names to dicts of '
                      'seed_graph.Key')
  return keys


def build(config: ml_collections.ConfigDict, spec: Optional[str]) -> lp.Program:
  """The program `spec` names (None: the built-in one of `config.algorithm`), after the
  config's checks; ConfigError in one line if it cannot be had."""
  if not spec:
    return central_inference.make_program(config)
  program = _own_program(config, spec)
  for line in give_each_learner_a_logdir(program):
    print(line, flush=True)
  return program


def give_each_learner_a_logdir(program: lp.Program) -> List[str]:
  """A learner whose logdir an earlier learner of the program already has (two learners
  built from one config) gets `<that logdir>/learner_<k>`, k its place among the
  program's learners, so that checkpoints and metrics never mix; the same on every host,
  since the program order is. Returns a line per learner moved."""
  taken, moved = set(), []
  for k, node in enumerate(learners(program)):
    logdir = os.path.abspath(node.logdir)
    if logdir in taken:
      node.use_logdir(os.path.join(node.logdir, f'learner_{k}'))
      moved.append(f'learner {k} shares the logdir {logdir} with an earlier learner: it '
                   f'writes to {node.logdir} instead')
      logdir = os.path.abspath(node.logdir)
    taken.add(logdir)
  return moved


def _own_program(config: ml_collections.ConfigDict, spec: str) -> lp.Program:
  function = _function(spec)
  # The learner's keys and the program's own, whoever builds the graph.
  registry.validate_config(config, config_keys(spec))
  program = function(config)
  if not isinstance(program, lp.Program):
    raise ConfigError(f'--program={spec}: returned {type(program).__name__}, not a '
                      'launchpad Program')
  if first_learner(program) is None:
    raise ConfigError(f'--program={spec}: the program has no seed_graph LearnerNode (the '
                      'launcher\'s status line follows the first one)')
  return program


def learners(program: lp.Program) -> List[learner_node.LearnerNode]:
  """The program's `LearnerNode`s, in any group, in program order: the status line
  shows the first in full and the others' returns."""
  return [node for node in program.get_all_nodes()
          if isinstance(node, learner_node.LearnerNode)]


def first_learner(program: lp.Program) -> Optional[learner_node.LearnerNode]:
  return next(iter(learners(program)), None)
