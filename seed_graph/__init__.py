"""seed_graph: SEED RL (central inference, V-trace, R2D2) as Launchpad program graphs.

What a program of your own needs is re-exported here (imported on first use, so
`import seed_graph` stays cheap): see docs/architecture.md, "A program or algorithm of
your own".
"""

import importlib

# name -> module it comes from.
_EXPORTS = {
    'Algorithm': 'seed_graph.algos.base',
    'AlgorithmBuilder': 'seed_graph.algos.builder',
    'AlgorithmContext': 'seed_graph.algos.base',
    'EnvironmentSpec': 'seed_graph.algos.base',
    'Hyperparameters': 'seed_graph.algos.hyperparameters',
    'Key': 'seed_graph.config.schema',
    'ConfigError': 'seed_graph.config.schema',
    'LearnerNode': 'seed_graph.nodes.learner.node',
    'LearnerClient': 'seed_graph.nodes.learner.client',
    'ActorNode': 'seed_graph.nodes.actor',
    'EvaluatorNode': 'seed_graph.nodes.evaluator',
    'ReplayNode': 'seed_graph.nodes.replay',
    'VTrace': 'seed_graph.algos.vtrace.learning',
    'R2D2': 'seed_graph.algos.r2d2.learning',
    'add_actors_and_evaluators': 'seed_graph.programs.acting',
    'acting_config': 'seed_graph.envs',
    'read_spec': 'seed_graph.envs',
    'actor_env_ids': 'seed_graph.config.id_ranges',
    'evaluator_env_ids': 'seed_graph.config.id_ranges',
    'stopping': 'seed_graph.lifecycle.program_stop',
    'tell_console': 'seed_graph.lifecycle.console_notes',
    'make_program': 'seed_graph.programs.central_inference',
    'make_torso': 'seed_graph.algos.networks',
    'algorithm_builder': 'seed_graph.programs.registry',
    'default_config': 'seed_graph.programs.registry',
    'validate_config': 'seed_graph.programs.registry',
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
  if name not in _EXPORTS:
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
  value = getattr(importlib.import_module(_EXPORTS[name]), name)
  globals()[name] = value
  return value


def __dir__():
  return sorted(list(globals()) + __all__)


