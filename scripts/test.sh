#!/usr/bin/env bash
# Sets up .venv if needed (and builds Google Research Football into it), then runs every
# test once on each Python the project runs on:
#   1. the unit tier under Bazel (scripts/bazel_test.sh: the tests run from their
#      declared files only, so an undeclared import or data file fails);
#   2. the integration and learning tiers with pytest;
#   3. the unit tier again on CPython 3.8 (.venv38), the Python of the Cloud TPU VM
#      runtime's learner host.
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
bash scripts/bazel_test.sh
.venv/bin/python -m pytest -v -p no:cacheprovider --durations=25 tests/integration tests/learning
bash scripts/setup_env.sh --python=3.8
.venv38/bin/python -m pytest -v -p no:cacheprovider tests/unit
