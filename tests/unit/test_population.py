"""The population-based training example (`examples/population.py`,
`examples/population_controller.py`): who copies whom, the perturbation, the program's
own config keys, and a controller round against stand-in learners (the learning tier
trains a real population)."""

import json
import os
import time

import numpy as np
import portpicker
import pytest

from examples import population
from examples import population_controller as controller_lib
from seed_graph.config import record as config_record
from seed_graph.config.schema import ConfigError
from seed_graph.launch import eval as eval_lib
from seed_graph.launch.runs import config_args
from seed_graph.launch.runs import program_args
from seed_graph.nodes.learner import client as learner_client
from tests import helpers

_PROGRAM = 'examples.population:make_program'
_CONFIG = 'cartpole_vtrace'


def test_the_worst_copy_the_best_and_only_if_better():
  rng = np.random.default_rng(0)
  plan = controller_lib.plan_round
  assert plan([10.0, 30.0], [True, True], 0.25, rng) == [(0, 1)]
  assert plan([30.0, 10.0, 20.0, 5.0], [True] * 4, 0.25, rng) == [(3, 0)]
  assert sorted(plan([1.0, 2.0, 3.0, 4.0], [True] * 4, 0.5, rng)) in (
      [(0, 2), (1, 2)], [(0, 2), (1, 3)], [(0, 3), (1, 2)], [(0, 3), (1, 3)])
  assert plan([10.0, 30.0], [True, False], 0.25, rng) == []  # Not ready: not ranked.
  assert plan([None, 30.0, 20.0], [True] * 3, 0.25, rng) == [(2, 1)]  # No return yet.
  assert plan([10.0, 10.0], [True, True], 0.25, rng) == []  # Not strictly better.


def test_perturb_multiplies_each_value_by_one_of_the_factors():
  rng = np.random.default_rng(1)
  seen = set()
  for _ in range(50):
    values = controller_lib.perturb({'learning_rate': 1e-3, 'entropy_cost': 0.01},
                                    (0.8, 1.2), rng)
    seen.add(round(values['learning_rate'] / 1e-3, 6))
    assert round(values['entropy_cost'] / 0.01, 6) in (0.8, 1.2)
  assert seen == {0.8, 1.2}


def test_the_programs_own_keys_are_checked_and_overridden_like_built_in_ones(tmp_path):
  keys = program_args.config_keys(_PROGRAM)
  assert set(keys) == {'population'}
  config = config_args.load(_CONFIG, ['population.size=3', 'population.spread=1.5'], keys)
  assert config.population.size == 3 and config.population.interval_seconds == 20.0
  with pytest.raises(ConfigError, match=r'^population.size: at least 2'):
    config_args.load(_CONFIG, ['population.size=1'], keys)
  with pytest.raises(ConfigError, match='population.sise: no such key; did you mean '
                                        'population.size'):
    config_args.load(_CONFIG, ['population.sise=3'], keys)
  with pytest.raises(ConfigError, match='^--config.population.size: no such key'):
    config_args.load(_CONFIG, ['population.size=3'])  # Without the program's keys.


def test_the_program_has_a_learner_and_actors_per_member_and_one_controller(tmp_path):
  config = config_args.load(_CONFIG, ['population.size=3', 'actors.num=2'],
                            program_args.config_keys(_PROGRAM))
  config.logdir = str(tmp_path)
  program = program_args.build(config, _PROGRAM)
  groups = {name: len(nodes) for name, nodes in program.groups.items()}
  assert groups == {'learner': 3, 'actor': 6, 'evaluator': 3, 'controller': 1}
  members = [population.member_config(config, k) for k in range(3)]
  assert len({m.logdir for m in members}) == 3 and len({m.seed for m in members}) == 3
  # Initial hyperparameters: drawn within `spread` of the config's, each member its own.
  rates = [m.learner.learning_rate / config.learner.learning_rate for m in members]
  assert all(0.5 <= r <= 2.0 for r in rates) and len(set(rates)) == 3


def test_learners_that_share_a_logdir_get_one_each_before_launch(tmp_path, monkeypatch):
  config = config_args.load(_CONFIG, ['population.size=3'],
                            program_args.config_keys(_PROGRAM))
  config.logdir = str(tmp_path)
  shared = population.member_config(config, 0)
  monkeypatch.setattr(population, 'member_config',
                      lambda config, k: shared)  # One config object for every learner.
  program = program_args.build(config, _PROGRAM)
  logdirs = [node.logdir for node in program_args.learners(program)]
  assert logdirs == [shared.logdir, os.path.join(shared.logdir, 'learner_1'),
                     os.path.join(shared.logdir, 'learner_2')]
  assert shared.logdir == str(tmp_path / 'member_0')  # The shared object is untouched.
  assert [node.config.seed for node in program_args.learners(program)] == [shared.seed] * 3


def test_a_member_records_its_config_in_its_own_logdir_for_launch_eval(tmp_path):
  config = config_args.load(_CONFIG, ['population.size=2'],
                            program_args.config_keys(_PROGRAM))
  config.logdir = str(tmp_path)
  member = population.member_config(config, 1)
  assert config_record.record_if_absent(member)  # What its learner node does first.
  assert not config_record.record_if_absent(member)  # Once.
  loaded = eval_lib.load_config(member.logdir)  # launch.eval --logdir=<logdir>/member_1
  assert loaded.logdir == member.logdir and loaded.seed == member.seed
  assert loaded.learner.learning_rate == member.learner.learning_rate


class _StandIn:
  """A learner's control edge, as the controller calls it."""

  def __init__(self, frames, episode_return, weights, answers=True):
    self.stats = {'frames': frames, 'episode_return': episode_return}
    self.weights = weights
    self.hyperparameters = {'learning_rate': 1e-3, 'entropy_cost': 0.01}
    self.answers = answers
    self.loaded_from = None

  def get_stats(self):
    if not self.answers:
      raise ConnectionError('restarting')
    return self.stats

  def get_weights(self):
    return self.weights

  def set_weights(self, state, source=''):
    self.weights, self.loaded_from = state, source

  def get_hyperparameters(self):
    return dict(self.hyperparameters)

  def set_hyperparameters(self, values):
    self.hyperparameters = dict(values)
    return self.hyperparameters


def test_a_round_copies_weights_and_perturbed_hyperparameters(tmp_path):
  config = config_args.load(_CONFIG, ['population.size=3', 'population.ready_frames=100'],
                            program_args.config_keys(_PROGRAM))
  config.logdir = str(tmp_path)
  members = [_StandIn(1000, 50.0, {'.index': b'a'}),
             _StandIn(1000, 90.0, {'.index': b'b'}),
             _StandIn(1000, 10.0, {'.index': b'c'}, answers=False)]
  controller = controller_lib.PopulationController(members, config)
  (change,) = controller.step()
  assert change['member'] == 0 and change['copied'] == 1
  assert members[0].weights == {'.index': b'b'} and members[0].loaded_from == 'member_1'
  for name, value in members[0].hyperparameters.items():
    assert round(value / members[1].hyperparameters[name], 6) in (0.8, 1.2)
  assert members[2].weights == {'.index': b'c'}  # It did not answer: left out.
  (line,) = (tmp_path / 'population.jsonl').read_text().splitlines()
  assert json.loads(line)['changes'][0]['copied'] == 1
  said = controller_lib.describe(change)  # The console's line for it.
  assert said.startswith('member 0 (return 50) copied member 1 (return 90) '
                         'at 1,000 frames; ')
  for name, value in members[0].hyperparameters.items():
    assert f'{name} {value:.3g}' in said
  # Member 0 is not ranked again until it has trained `ready_frames` more.
  members[0].stats = {'frames': 1050, 'episode_return': 1.0}
  assert controller.step() == []
  members[0].stats = {'frames': 1100, 'episode_return': 1.0}
  assert [c['member'] for c in controller.step()] == [0]


def test_learner_clients_offer_what_the_controller_calls():
  for name in ('get_stats', 'get_weights', 'set_weights', 'get_hyperparameters',
               'set_hyperparameters'):
    assert callable(getattr(learner_client.LearnerClient, name))


def test_a_round_with_learners_that_have_stopped_ends_within_the_call_timeout(tmp_path):
  """Courier's client waits for a server to come up; a control-edge call must not wait
  forever for a learner that has stopped, or the controller never sees Ctrl-C."""
  config = config_args.load(_CONFIG, [], program_args.config_keys(_PROGRAM))
  config.logdir = str(tmp_path)
  gone = [learner_client.LearnerClient(f'localhost:{portpicker.pick_unused_port()}',
                                     'localhost:1', control_timeout_seconds=1.0)
          for _ in range(2)]
  controller = controller_lib.PopulationController(gone, config)
  start = time.monotonic()
  assert controller.step() == []  # Neither answered: both left out of the round.
  assert time.monotonic() - start < 10.0
