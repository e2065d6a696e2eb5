"""Checks that a Bazel-run test imports project code only from its runfiles.

//tests/unit:import_isolation_test runs this with deps = ["//seed_graph/algos"] only: the
modules of that package must import, from runfiles; every other project module must not,
although the checkout (and, after scripts/setup_env.sh, an editable install of it) is on
this machine. The same holds in a subprocess started with sys.executable, as tests start
`python -m seed_graph.launch.local` and Launchpad starts node processes.
"""

import importlib
import json
import os
import subprocess
import sys

CHECKOUT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
DECLARED = ['seed_graph.algos.vtrace.returns', 'seed_graph.algos.vtrace.loss']
UNDECLARED = ['seed_graph.inference.wire', 'seed_graph.envs', 'seed_graph.nodes.learner.shell',
              'seed_graph.programs.vtrace', 'seed_graph.launch.local',
              'seed_graph.configs.cartpole_vtrace',
              'tests.helpers']

PROBE = r'''
import importlib, json, os, sys
found = {}
for name in sys.argv[1:]:
  try:
    found[name] = os.path.abspath(importlib.import_module(name).__file__)
  except ModuleNotFoundError:
    found[name] = None
print(json.dumps(found))
'''


def in_this_process(names):
  found = {}
  for name in names:
    try:
      found[name] = os.path.abspath(importlib.import_module(name).__file__)
    except ModuleNotFoundError:
      found[name] = None
  return found


def in_a_subprocess(names):
  output = subprocess.run([sys.executable, '-c', PROBE, *names], check=True,
                          capture_output=True, text=True).stdout
  return json.loads(output.strip().splitlines()[-1])


def main():
  failures = []
  if not os.path.isfile(os.path.join(CHECKOUT, 'seed_graph', 'inference', 'wire.py')):
    failures.append(f'could not find the checkout from {__file__}')
  if any(entry and os.path.realpath(entry) == CHECKOUT for entry in sys.path):
    failures.append(f'the checkout {CHECKOUT} is on sys.path')
  runfiles = os.getcwd()
  names = DECLARED + UNDECLARED
  for where, found in (('this process', in_this_process(names)),
                       ('a subprocess', in_a_subprocess(names))):
    for name in DECLARED:
      if found[name] is None:
        failures.append(f'{where}: declared {name} does not import')
      elif not found[name].startswith(runfiles + os.sep):
        failures.append(f'{where}: declared {name} imported from {found[name]}, '
                        f'not from runfiles ({runfiles})')
    for name in UNDECLARED:
      if found[name] is not None:
        failures.append(f'{where}: undeclared {name} imported from {found[name]}')
  if failures:
    print('\n'.join(failures), file=sys.stderr)
    return 1
  print(f'ok: {DECLARED} import from runfiles; {UNDECLARED} do not import, '
        'in this process and in a subprocess')
  return 0


if __name__ == '__main__':
  sys.exit(main())
