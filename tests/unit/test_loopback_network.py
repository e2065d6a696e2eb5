"""When `launch.local` enters its network namespace before importing anything
(`loopback_network.launch_enters`): only when its command line surely asks for one."""

import sys

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


def test_the_command_run_again_is_this_launch_by_this_interpreter_on_every_python(
    monkeypatch):
  """`sys.orig_argv` is Python 3.10+; on 3.8 (a TPU VM's learner host) the launcher's
  own command is rebuilt from its module and `sys.argv`."""
  monkeypatch.setattr(sys, 'argv', ['/x/seed_graph/launch/local.py'] + _RUN)
  monkeypatch.delattr(sys, 'orig_argv', raising=False)
  assert loopback_network.own_command('seed_graph.launch.local') == [
      sys.executable, '-m', 'seed_graph.launch.local'] + _RUN
  monkeypatch.setattr(sys, 'orig_argv', ['python3', '-u', '-m', 'seed_graph.launch.local']
                      + _RUN, raising=False)
  assert loopback_network.own_command('seed_graph.launch.local') == [
      sys.executable, '-u', '-m', 'seed_graph.launch.local'] + _RUN
