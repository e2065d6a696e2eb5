"""Fails while a test file has no Bazel target (see every_test_file_has_a_target in defs.bzl).

  missing_test_targets.py tests/BUILD [test_file.py ...]
"""

import sys


def main(argv):
  build_file, missing = argv[0], argv[1:]
  if not missing:
    print(f'every test_*.py next to {build_file} has a seed_py_test')
    return 0
  for name in missing:
    print(f'{name} has no target in {build_file}: add\n'
          f'    seed_py_test(\n'
          f'        name = "{name[:-len(".py")]}",\n'
          f'        srcs = ["{name}"],\n'
          f'        deps = [...],  # the project packages it imports\n'
          f'    )',
          file=sys.stderr)
  return 1


if __name__ == '__main__':
  sys.exit(main(sys.argv[1:]))
