#!/usr/bin/env bash
# Interpreter of this workspace's Bazel Python toolchain (//tools/bazel:python_toolchain).
#
# Runs the repo's .venv python (made by scripts/setup_env.sh) so that a Bazel-run program
# imports third-party packages from .venv's site-packages and project code only from its
# runfiles, i.e. only what its deps declare:
#   * site/sitecustomize.py (put first on PYTHONPATH, so subprocesses such as
#     `python -m seed_graph.launch.local` and Launchpad's node processes get it too) removes the
#     editable install's finder, which would otherwise find any seed_graph
#     module in the checkout whatever the deps say;
#   * PYTHONNOUSERSITE: no ~/.local site-packages.
# The venv is found next to the checked-in copy of this script (Bazel runs it through a
# symlink in runfiles or the execroot), so no path is configured anywhere:
# .venv (CPython 3.10), or .venv38 when SEED_GRAPH_BAZEL_PYTHON=3.8
# (`scripts/bazel_test.sh --python=3.8` passes it to every action and test).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
checkout="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
case "${SEED_GRAPH_BAZEL_PYTHON:-3.10}" in
  3.10) venv=.venv; setup="bash scripts/setup_env.sh" ;;
  3.8) venv=.venv38; setup="bash scripts/setup_env.sh --python=3.8" ;;
  *) echo "tools/bazel/python3.sh: SEED_GRAPH_BAZEL_PYTHON=$SEED_GRAPH_BAZEL_PYTHON" \
          "is neither 3.10 nor 3.8" >&2
     exit 2 ;;
esac
python="$checkout/$venv/bin/python"
if [[ ! -x "$python" ]]; then
  echo "tools/bazel/python3.sh: no $python; run: $setup" >&2
  exit 127
fi
export PYTHONPATH="$here/site${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONNOUSERSITE=1
exec "$python" "$@"
