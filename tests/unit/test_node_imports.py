"""What an acting node's process loads to start: Launchpad's process entry unpickles the
node (with its handles) and runs it. Actors and evaluators hold no model (the learner
infers for them, and only the R2D2 learner talks to the replay), so unpickling one must
not import TensorFlow: that import costs every such process about 2 s of CPU at start
and 250 MB."""

import os
import subprocess
import sys

import cloudpickle
import pytest

from seed_graph.configs import cartpole_r2d2
from seed_graph.configs import cartpole_vtrace
from seed_graph.programs import central_inference

# Unpickles a node in a fresh interpreter, as launchpad/nodes/python/process_entry.py does;
# prints its type and whether TensorFlow got imported.
_UNPICKLE = '''
import sys
import cloudpickle
with open(sys.argv[1], 'rb') as f:
  node = cloudpickle.load(f)
print(type(node).__name__, 'tensorflow' in sys.modules)
'''


@pytest.mark.parametrize('preset', [cartpole_vtrace, cartpole_r2d2],
                         ids=['vtrace', 'r2d2'])
def test_the_acting_nodes_start_without_tensorflow(tmp_path, preset):
  config = preset.get_config()
  config.logdir = str(tmp_path)
  program = central_inference.make_program(config)
  environment = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
  for group, node_type in (('actor', 'ActorNode'), ('evaluator', 'EvaluatorNode'),
                           ('learner', 'LearnerNode')):
    path = tmp_path / f'{group}.pkl'
    path.write_bytes(cloudpickle.dumps(program.groups[group][0]))
    result = subprocess.run([sys.executable, '-c', _UNPICKLE, str(path)], env=environment,
                            capture_output=True, text=True, timeout=120, check=True)
    # The learner, which does need it, shows that the check can see an import.
    loads_tensorflow = group == 'learner'
    assert result.stdout.split() == [node_type, str(loads_tensorflow)], result.stderr
