"""Placement plans: every node placed once, ports fixed by program order, the program
rebuilt from the plan's config and overrides, and the fingerprint that catches hosts
whose program differs."""

import pytest

from seed_graph.launch import placement

HOSTS = dict(learner_host=('learner', '10.0.0.1'),
             actor_hosts=[('cpu0', '10.0.0.2'), ('cpu1', '10.0.0.3')])


def _plan(*overrides, config_path='cartpole_r2d2', base_port=30000,
          program=''):
  config, built = placement.load_program(config_path, overrides, '/shared/run', program)
  return built, placement.make_plan(built, config, config_path, overrides,
                                    base_port=base_port, program_spec=program, **HOSTS)


def test_every_node_is_placed_once_and_ports_follow_program_order():
  _, plan = _plan('actors.num=3')
  assert plan.nodes == {'replay/0': 'learner', 'learner/0': 'learner',
                        'actor/0': 'cpu0', 'actor/1': 'cpu1', 'actor/2': 'cpu0',
                        'evaluator/0': 'learner'}
  assert plan.ports['replay/0'] == [30000] and plan.ports['learner/0'] == [30001, 30002]
  assert all(not plan.ports[f'actor/{i}'] for i in range(3))
  assert plan.nodes_of('cpu0') == ['actor/0', 'actor/2']
  with pytest.raises(placement.PlanError, match='--host=gpu is not in the plan'):
    plan.nodes_of('gpu')


def test_the_same_inputs_make_the_same_plan_and_bind_the_same_addresses(tmp_path):
  program, plan = _plan('actors.num=3')
  plan.save(str(tmp_path / 'plan.json'))
  loaded = placement.Plan.load(str(tmp_path / 'plan.json'))
  assert loaded == plan == _plan('actors.num=3')[1]
  placement.bind(program, loaded)
  learner = program.groups['learner'][0]
  assert [a.resolve() for a in learner.addresses] == ['10.0.0.1:30001', '10.0.0.1:30002']
  assert program.groups['replay'][0].addresses[0].resolve() == '10.0.0.1:30000'


def test_the_fingerprint_changes_with_the_config_the_nodes_and_the_ports():
  base = _plan()[1].fingerprint
  assert _plan('learner.learning_rate=0.01')[1].fingerprint != base
  assert _plan('actors.num=3')[1].fingerprint != base
  assert _plan(base_port=30001)[1].fingerprint != base
  assert _plan()[1].fingerprint == base


def test_overrides_are_parsed_as_the_command_line_would_and_bad_ones_named():
  config, _ = placement.load_program(
      'cartpole_vtrace', ['inference.jit_compile=false', 'actors.num=4',
                                     'learner.reward_clipping=abs_one',
                                     'network.mlp_sizes=(32, 32)'], '/run')
  assert config.inference.jit_compile is False and config.actors.num == 4
  assert config.learner.reward_clipping == 'abs_one'
  assert tuple(config.network.mlp_sizes) == (32, 32) and config.logdir == '/run'
  with pytest.raises(placement.PlanError, match='actors.nmu: no such key; did you mean actors.num'):
    placement.load_program('cartpole_vtrace', ['actors.nmu=4'], '/run')
  with pytest.raises(placement.PlanError, match='at least one actor host'):
    placement.make_plan(None, config, 'c.py', [], ('l', 'a'), [], 20000)


def test_a_program_of_ones_own_is_recorded_and_its_actors_spread_over_actor_hosts():
  # examples/population.py: two learners, each with 2 actors and an evaluator, and a
  # controller, in groups the placement does not know by name.
  program, plan = _plan('population.size=2', 'actors.num=2',
                        config_path='cartpole_vtrace',
                        program='examples.population:make_program')
  assert plan.program == 'examples.population:make_program'
  assert {n: h for n, h in plan.nodes.items() if h != 'learner'} == {
      'actor/0': 'cpu0', 'actor/1': 'cpu1', 'actor/2': 'cpu0', 'actor/3': 'cpu1'}
  assert {n for n, h in plan.nodes.items() if h == 'learner'} == {
      'learner/0', 'learner/1', 'evaluator/0', 'evaluator/1', 'controller/0'}
  config, _ = placement.load_program('cartpole_vtrace',
                                     ['population.size=2', 'actors.num=2'], '/shared/run',
                                     'examples.population:make_program')
  assert placement.fingerprint(program, config, plan.ports,
                               plan.program) == plan.fingerprint
  assert placement.fingerprint(program, config, plan.ports, 'x:y') != plan.fingerprint
  with pytest.raises(placement.PlanError, match='population.size: at least 2'):
    _plan('population.size=1', config_path='cartpole_vtrace',
          program='examples.population:make_program')
