"""V-trace (IMPALA), with APPO's batch reuse as an option: `BUILDER` is all that the rest
of seed_graph asks of it (`seed_graph.algos.builder`).

    learner (V-trace) <-- inference stream -- actors, evaluators
"""

from seed_graph.algos.builder import AlgorithmBuilder
from seed_graph.algos.vtrace import config
from seed_graph.algos.vtrace.learning import VTrace

BUILDER = AlgorithmBuilder(name='vtrace', algorithm=VTrace, schema=config.SCHEMA,
                           check=config.check)
