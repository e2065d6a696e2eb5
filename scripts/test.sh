#!/usr/bin/env bash
# Sets up .venv if needed (and builds Google Research Football into it), then runs every
# tier of the test suite with pytest (tests/unit, tests/integration, tests/learning;
# extra arguments go to pytest, e.g. `-m unit`), then the unit tier under Bazel
# (scripts/bazel_test.sh: undeclared imports fail), then the unit tier again on CPython
# 3.8 (.venv38), the Python of the Cloud TPU VM runtime's learner host.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$repo/scripts/setup_env.sh"
bash "$repo/scripts/install_football.sh" "$repo/.venv/bin/python"
cd "$repo"
.venv/bin/python -m pytest -v -p no:cacheprovider --durations=25 tests "$@"
bash scripts/bazel_test.sh
bash scripts/setup_env.sh --python=3.8
.venv38/bin/python -m pytest -v -p no:cacheprovider tests/unit
