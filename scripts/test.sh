#!/usr/bin/env bash
# Sets up .venv if needed (and builds Google Research Football into it), then runs the
# whole test suite, learning tests included. Extra arguments go to pytest.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$repo/scripts/setup_env.sh"
if [[ -f "$repo/scripts/install_football.sh" ]]; then
  bash "$repo/scripts/install_football.sh" "$repo/.venv/bin/python"
fi
cd "$repo"
exec .venv/bin/python -m pytest -v -p no:cacheprovider tests "$@"
