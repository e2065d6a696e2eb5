r"""Where a program's nodes run across hosts, as data: a plan file a user can read and edit.

  python -m seed_graph.launch.placement --config=cartpole_vtrace --logdir=/shared/run \
      --learner_host=learner=10.0.0.2 --actor_hosts=cpu0=10.0.0.3,cpu1=10.0.0.4 \
      --output=plan.json [--base_port=20000] [--config.actors.num=4 ...]

Actors (`ActorNode`s, in any group) are dealt round-robin to the actor hosts; every other
node (learners, the replay, evaluators, a program's own nodes) goes to the learner host,
where they share the learner's accelerator and disk. Every
address a node listens on gets a port in program order from `base_port`, so the plan
alone says where every server is: each host binds the whole program's addresses from it
(`bind`) and runs only its own nodes (`launch.host`).

The plan names the config file, its overrides and the program function (`--program`,
empty for the built-in program of the config's algorithm), not a pickled program: each
host rebuilds the program from its own checkout and refuses to run if its `fingerprint`
(node labels and counts, ports, the resolved config) differs from the plan's, so hosts
with different code or configs never half-work together.
"""

import dataclasses
import hashlib
import json
import sys
from typing import Dict, List, Sequence, Tuple

from absl import app
from absl import flags
from launchpad import address as lp_address
import launchpad as lp
import ml_collections

from seed_graph.config import schema as config_schema
from seed_graph.launch.runs import config_args
from seed_graph.launch.runs import program_args
from seed_graph.nodes import replay_socket
from seed_graph.nodes.actor import ActorNode


class PlanError(ValueError):
  """A plan that cannot be made or used, said in one line."""


class FixedAddressBuilder(lp_address.AbstractAddressBuilder):
  """An address (`host:port`, or `unix:<path>`) that is the same wherever it is resolved
  (pickled with the nodes)."""

  def __init__(self, host_port: str):
    self._host_port = host_port

  def build(self) -> str:
    return self._host_port


@dataclasses.dataclass
class Plan:
  config_path: str
  overrides: List[str]  # 'learner.batch_size=8', as given on the command line.
  logdir: str
  hosts: Dict[str, str]  # Host name -> address the others reach it at.
  nodes: Dict[str, str]  # Node name ('actor/1') -> host name.
  ports: Dict[str, List[int]]  # Node name -> the ports of its addresses, in order.
  fingerprint: str
  program: str = ''  # --program=module:function; '' for the config's built-in program.

  def save(self, path: str):
    with open(path, 'w') as f:
      json.dump(dataclasses.asdict(self), f, indent=2)
      f.write('\n')

  @classmethod
  def load(cls, path: str) -> 'Plan':
    with open(path) as f:
      return cls(**json.load(f))

  def nodes_of(self, host: str) -> List[str]:
    if host not in self.hosts:
      raise PlanError(f'--host={host} is not in the plan (hosts: {", ".join(self.hosts)})')
    return [node for node, where in self.nodes.items() if where == host]

  def host_nodes(self, host: str) -> str:
    """`host`'s nodes with their ports: 'learner/0 [20000, 20001], evaluator/0'."""
    return ', '.join(f'{node} {self.ports[node]}' if self.ports[node] else node
                     for node in self.nodes_of(host))

  def describe(self) -> List[str]:
    """One line per host: its address and its nodes."""
    return [f'{host} ({address}): {self.host_nodes(host)}'
            for host, address in self.hosts.items()]


def load_program(config_path: str, overrides: Sequence[str], logdir: str,
                 program: str = '') -> Tuple[ml_collections.ConfigDict, lp.Program]:
  """(the config, the program), built exactly as `launch.local` builds them: the config
  file with `key=value` overrides and the program's own keys, then the program function
  `program` (or the config's built-in program). PlanError, one line, if bad."""
  try:
    keys = program_args.config_keys(program)
    config = config_args.load(config_path, overrides, keys)
    config.logdir = logdir
    return config, program_args.build(config, program)
  except config_schema.ConfigError as error:
    raise PlanError(str(error)) from None


def node_names(program: lp.Program) -> List[Tuple[str, object]]:
  """('group/index', node) for every node, in program order."""
  return [(f'{group}/{index}', node) for group, nodes in program.groups.items()
          for index, node in enumerate(nodes)]


def fingerprint(program: lp.Program, config: ml_collections.ConfigDict,
                ports: Dict[str, List[int]], program_spec: str = '') -> str:
  described = {'nodes': [name for name, _ in node_names(program)], 'ports': ports,
               'config': json.loads(config.to_json())}
  if program_spec:
    described['program'] = program_spec
  return hashlib.sha256(json.dumps(described, sort_keys=True).encode()).hexdigest()[:16]


def make_plan(program: lp.Program, config: ml_collections.ConfigDict, config_path: str,
              overrides: Sequence[str], learner_host: Tuple[str, str],
              actor_hosts: Sequence[Tuple[str, str]], base_port: int,
              program_spec: str = '') -> Plan:
  if not actor_hosts:
    raise PlanError('at least one actor host is needed')
  hosts = dict([learner_host] + list(actor_hosts))
  if len(hosts) != 1 + len(actor_hosts):
    raise PlanError('host names must differ')
  nodes, ports, next_port = {}, {}, base_port
  actor_names = [name for name, _ in actor_hosts]
  actors = 0
  for name, node in node_names(program):
    nodes[name] = learner_host[0]
    if isinstance(node, ActorNode):
      nodes[name] = actor_names[actors % len(actor_names)]
      actors += 1
    ports[name] = list(range(next_port, next_port + len(node.addresses)))
    next_port += len(node.addresses)
  return Plan(config_path, list(overrides), config.logdir, hosts, nodes, ports,
              fingerprint(program, config, ports, program_spec), program_spec)


def bind(program: lp.Program, plan: Plan, host_only_sockets: bool = False):
  """Binds every address of the program to its host and port in the plan; with
  `host_only_sockets`, a node that only its own host's nodes use (`HOST_ONLY`: the
  replay) to a Unix socket of the run instead (`seed_graph.nodes.replay_socket`)."""
  for name, node in node_names(program):
    host = plan.hosts[plan.nodes[name]]
    for address, port in zip(node.addresses, plan.ports[name]):
      address.bind(FixedAddressBuilder(
          replay_socket.address(plan.fingerprint, name)
          if host_only_sockets and getattr(node, 'HOST_ONLY', False) else f'{host}:{port}'))


_OVERRIDES = []  # The `--config.KEY=VALUE` arguments, taken out before absl sees them.


def _host(text: str) -> Tuple[str, str]:
  name, _, address = text.partition('=')
  if not name or not address:
    raise PlanError(f'{text!r} is not NAME=ADDRESS')
  return name, address


def _parse_flags(argv: Sequence[str]):
  return flags.FLAGS(config_args.take_overrides(argv, _OVERRIDES))


def main(argv: Sequence[str]):
  del argv
  try:
    config, program = load_program(_CONFIG.value, _OVERRIDES, _LOGDIR.value,
                                   _PROGRAM.value)
    plan = make_plan(program, config, _CONFIG.value, _OVERRIDES, _host(_LEARNER_HOST.value),
                     [_host(h) for h in _ACTOR_HOSTS.value], _BASE_PORT.value,
                     _PROGRAM.value)
  except ValueError as error:  # PlanError, ConfigError.
    print(f'error: {error}', file=sys.stderr, flush=True)
    return 2
  plan.save(_OUTPUT.value)
  print('\n'.join(plan.describe()))
  print(f'wrote {_OUTPUT.value} (fingerprint {plan.fingerprint})', flush=True)


if __name__ == '__main__':
  # Defined here, not at import: launch.cluster imports this module and has its own.
  _CONFIG = flags.DEFINE_string('config', None, 'Experiment config (a preset\'s name or a .py '
                                'file); `--config.KEY=VALUE` arguments override its keys.')
  _LOGDIR = flags.DEFINE_string('logdir', None, 'The run\'s logdir, as every host sees it '
                                '(a shared disk or a gs:// bucket).')
  _LEARNER_HOST = flags.DEFINE_string('learner_host', None, 'NAME=ADDRESS of the learner host.')
  _ACTOR_HOSTS = flags.DEFINE_list('actor_hosts', None, 'NAME=ADDRESS of each actor host.')
  _BASE_PORT = flags.DEFINE_integer('base_port', 20000, 'The first port of the plan.',
                                    lower_bound=1024, upper_bound=60000)
  _OUTPUT = flags.DEFINE_string('output', 'plan.json', 'Where to write the plan.')
  _PROGRAM = flags.DEFINE_string('program', '', 'module:function building the program '
                                 '(default: the config\'s built-in program).')
  flags.mark_flags_as_required(['config', 'logdir', 'learner_host', 'actor_hosts'])
  sys.exit(app.run(main, flags_parser=_parse_flags))
