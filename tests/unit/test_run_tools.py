"""The commands around a run: the program's picture and the learning-curve plot."""

import json
import os
import shutil

from matplotlib import image
import pytest

from seed_graph.configs import cartpole_r2d2
from seed_graph.launch import plot
from seed_graph.launch import program_graph
from seed_graph.programs import central_inference


def test_the_picture_has_every_node_and_every_edge_labelled(tmp_path):
  config = cartpole_r2d2.get_config()
  config.logdir = str(tmp_path / 'run')
  config.actors.num = 3
  program = central_inference.make_program(config)
  dot = program_graph.program_dot(program)
  for group, count in (('actor', 3), ('evaluator', 1), ('learner', 1), ('replay', 1)):
    assert f'label="{group} ({count} x ' in dot
    for index in range(count):
      assert f'"{group}/{index}";' in dot
  inference = program_graph.EDGE_LABELS['LearnerHandle']
  for caller in ('actor/0', 'actor/1', 'actor/2', 'evaluator/0'):
    assert f'"{caller}" -> "learner/0" [label="{inference}"];' in dot
  assert '"learner/0" -> "replay/0" [label="Reverb' in dot
  assert dot.count(' -> ') == 5
  written = program_graph.write(program, str(tmp_path / 'picture' / 'r2d2'))
  assert written[0].endswith('r2d2.dot')
  if shutil.which('dot') or os.geteuid() == 0:  # scripts/setup_env.sh installs it as root.
    assert written[1].endswith('r2d2.svg') and os.path.getsize(written[1]) > 1000


def _write_metrics(logdir, records):
  os.makedirs(logdir)
  with open(os.path.join(logdir, 'metrics.jsonl'), 'w') as f:
    for record in records:
      f.write(json.dumps(record) + '\n')


def test_curves_of_a_resumed_run_continue_in_time_and_plot_with_others(tmp_path):
  resumed = [dict(frames=1000 * i, episode_return=None if i == 0 else 10.0 * i,
                  eval_episode_return=None, fps=500.0, wall_time=30.0 * (i + 1))
             for i in range(3)]
  resumed += [dict(frames=3000 + 1000 * i, episode_return=40.0, eval_episode_return=45.0,
                   fps=520.0, wall_time=30.0 * (i + 1)) for i in range(2)]  # Restarted.
  _write_metrics(tmp_path / 'a', resumed)
  _write_metrics(tmp_path / 'b', [dict(frames=500, episode_return=1.0, fps=100.0,
                                       wall_time=10.0)])
  curves = plot.read_curves(str(tmp_path / 'a'))
  assert curves['minutes'] == [0.5, 1.0, 1.5, 2.0, 2.5]
  assert curves['return'][0] is None and curves['eval_return'][-1] == 45.0

  output = str(tmp_path / 'curves.png')
  plot.plot([str(tmp_path / 'a'), str(tmp_path / 'b')], output)
  picture = image.imread(output)
  assert picture.shape[0] > 300 and picture.shape[1] > 1000  # Two panels side by side.
  with pytest.raises(plot.PlotError, match='does not exist'):
    plot.read_curves(str(tmp_path / 'missing'))
