"""Main of every `seed_py_test` (tools/bazel/defs.bzl): pytest on the given test files.

Runs in the test's runfiles tree (the working directory), with Bazel's test conventions:
TEST_TMPDIR for pytest's tmp_path and for HOME, XML_OUTPUT_FILE for the JUnit report,
`bazel test --test_filter=EXPR` as `pytest -k EXPR`, extra `--test_arg`s passed to pytest.
"""

import os
import sys

# Python put the symlink-resolved directory of this script (tools/bazel/ in the checkout)
# first on sys.path; project code must come from runfiles only.
_CHECKOUT_DIR = os.path.dirname(os.path.realpath(__file__))
sys.path[:] = [p for p in sys.path if not p or os.path.realpath(p) != _CHECKOUT_DIR]

import pytest  # pylint: disable=g-import-not-at-top,wrong-import-position


def main(argv):
  tmp = os.environ.get('TEST_TMPDIR')
  args = ['-p', 'no:cacheprovider', '-v', '-rs', f'--rootdir={os.getcwd()}']
  if tmp:
    os.environ.setdefault('HOME', tmp)  # Bazel sets no HOME; keep tests off the real one.
    args.append(f'--basetemp={os.path.join(tmp, "pytest")}')
  if os.environ.get('XML_OUTPUT_FILE'):
    args.append(f'--junitxml={os.environ["XML_OUTPUT_FILE"]}')
  if os.environ.get('TESTBRIDGE_TEST_ONLY'):
    args += ['-k', os.environ['TESTBRIDGE_TEST_ONLY']]
  return pytest.main(args + argv)


if __name__ == '__main__':
  sys.exit(main(sys.argv[1:]))
