"""R2D2: recurrent Q-learning from a prioritized replay that its learner alone writes and
samples. `BUILDER` is all that the rest of seed_graph asks of it
(`seed_graph.algos.builder`).

    replay (Reverb) <-- sequences, samples, priorities -- learner (R2D2)
    learner <-- inference stream -- actors, evaluators (single frames: the learner
                                                        stacks them)
"""

from seed_graph.algos.builder import AlgorithmBuilder
from seed_graph.algos.r2d2 import config
from seed_graph.algos.r2d2 import replay
from seed_graph.algos.r2d2.learning import R2D2

BUILDER = AlgorithmBuilder(name='r2d2', algorithm=R2D2, schema=config.SCHEMA,
                           check=config.check, replay_tables=replay.make_replay_tables)
