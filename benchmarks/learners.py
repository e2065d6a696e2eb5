"""The learner a benchmark measures, built from its config alone: V-trace, or R2D2 with
its Reverb replay server in the same process."""


def build_learner(config, inference_port=None):
  """(learner, replay server or None) for `config.algorithm`; the learner serves
  inference on `inference_port` if given. Keep the server referenced while the learner
  runs: the learner holds only its address."""
  from seed_graph.nodes import learner as learner_lib  # pylint: disable=g-import-not-at-top
  if config.algorithm == 'r2d2':
    import reverb  # pylint: disable=g-import-not-at-top
    from seed_graph import envs  # pylint: disable=g-import-not-at-top
    from seed_graph.algos.r2d2 import learning as r2d2_learner  # pylint: disable=g-import-not-at-top
    from seed_graph.algos.r2d2 import replay as r2d2_replay  # pylint: disable=g-import-not-at-top
    replay = reverb.Server(r2d2_replay.make_replay_tables(config, envs.read_spec(config.env)), port=None)
    return learner_lib.Learner(config, r2d2_learner.R2D2Learner, f'localhost:{replay.port}',
                               inference_port=inference_port), replay
  from seed_graph.algos.vtrace import learning as vtrace_learner  # pylint: disable=g-import-not-at-top
  return learner_lib.Learner(config, vtrace_learner.VTraceLearner,
                             inference_port=inference_port), None
