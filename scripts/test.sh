#!/usr/bin/env bash
# Sets up .venv if needed (and builds Google Research Football into it), then runs the
# whole test suite with pytest, learning tests included (extra arguments go to pytest),
# then the unit tests under Bazel (scripts/bazel_test.sh).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$repo/scripts/setup_env.sh"
if [[ -f "$repo/scripts/install_football.sh" ]]; then
  bash "$repo/scripts/install_football.sh" "$repo/.venv/bin/python"
fi
cd "$repo"
.venv/bin/python -m pytest -v -p no:cacheprovider tests "$@"
# The unit tests again under Bazel: every import between packages must be declared.
bash scripts/bazel_test.sh
