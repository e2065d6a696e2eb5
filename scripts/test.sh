#!/usr/bin/env bash
# Sets up .venv if needed (and builds Google Research Football into it), then runs every
# test once on each Python the project runs on:
#   1. the unit tier under Bazel (scripts/bazel_test.sh: the tests run from their
#      declared files only, so an undeclared import or data file fails), and beside it
#      the unit tier on CPython 3.8 (.venv38), the Python of the Cloud TPU VM runtime's
#      learner host;
#   2. the integration and learning tiers with pytest.
# With arguments, runs pytest alone on every tier with them instead, e.g.
# `bash scripts/test.sh -m unit` or `bash scripts/test.sh -k resumes`.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$repo/scripts/setup_env.sh"
bash "$repo/scripts/install_football.sh" "$repo/.venv/bin/python"
cd "$repo"
if [[ $# -gt 0 ]]; then
  exec .venv/bin/python -m pytest -v -p no:cacheprovider tests "$@"
fi
bash scripts/setup_env.sh --python=3.8
# The two unit tiers side by side (one test at a time each, on 2 cores): most of a unit
# test is one process importing TensorFlow and tracing, on one core.
py38_log="$(mktemp)"
trap 'rm -f "$py38_log"' EXIT
.venv38/bin/python -m pytest -v -p no:cacheprovider tests/unit >"$py38_log" 2>&1 &
py38=$!
bazel_status=0
bash scripts/bazel_test.sh || bazel_status=$?
py38_status=0
wait "$py38" || py38_status=$?
echo "=== the unit tier on Python 3.8 (.venv38) ==="
cat "$py38_log"
if [[ $bazel_status -ne 0 || $py38_status -ne 0 ]]; then
  echo "test.sh: unit tier failed (bazel: exit $bazel_status, python 3.8: exit $py38_status)" >&2
  exit 1
fi
.venv/bin/python -m pytest -v -p no:cacheprovider --durations=25 tests/integration tests/learning
