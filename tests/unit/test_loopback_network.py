"""When `launch.local` enters its network namespace before importing anything
(`loopback_network.launch_enters`): only when its command line surely asks for one."""

import pytest

from seed_graph.launch.network import loopback_network

_RUN = ['--config=cartpole_vtrace', '--logdir=/tmp/run', '--config.actors.num=4']


@pytest.fixture(autouse=True)
def _outside(monkeypatch):
  monkeypatch.delenv(loopback_network.INSIDE_VARIABLE, raising=False)


@pytest.mark.parametrize('extra', [[], ['--network=loopback'], ['--launch_type=local_mt'],
                                   ['--config.network.torso=mlp'], ['--max_restarts', '3']])
def test_a_launch_that_runs_its_program_in_a_namespace_enters_early(extra):
  assert loopback_network.launch_enters(_RUN + extra)


@pytest.mark.parametrize('extra', [
    ['--network=host'], ['-network=host'], ['--network', 'host'], ['--print_config'],
    ['--print_config=true'], ['-print_config'], ['--help'], ['--helpfull'], ['-h'],
    ['--flagfile=flags.txt']])
def test_anything_else_is_left_to_the_launcher_after_its_flags(extra):
  assert not loopback_network.launch_enters(_RUN + extra)


def test_a_launcher_already_inside_does_not_enter_again(monkeypatch):
  monkeypatch.setenv(loopback_network.INSIDE_VARIABLE, '1')
  assert not loopback_network.launch_enters(_RUN)
