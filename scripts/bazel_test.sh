#!/usr/bin/env bash
# Runs the Python tests with Bazel (WORKSPACE, BUILD files; docs/testing.md), offline:
# installs Debian's bazel-bootstrap (Bazel 4.2.3) if there is no `bazel`, sets up .venv if
# needed (scripts/setup_env.sh), then `bazel test //tests/unit/...`: the unit tier, whose
# value under Bazel is that every import between packages must be declared (pytest runs
# every tier). Extra arguments go to `bazel test`, e.g. --test_output=all, or other
# targets (//tests/... runs every tier). Exits non-zero if anything fails.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

if ! command -v bazel >/dev/null; then
  if ! command -v apt-get >/dev/null; then
    echo "bazel_test: no bazel on PATH and no apt-get to install bazel-bootstrap" >&2
    exit 1
  fi
  sudo=""
  if [[ "$(id -u)" -ne 0 ]]; then sudo="sudo"; fi
  echo "bazel_test: installing Debian's bazel-bootstrap" >&2
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bazel-bootstrap >/dev/null
fi

bash "$repo/scripts/setup_env.sh"
cd "$repo"

flags=()
if ! .venv/bin/python -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec("gfootball") is None)'; then
  echo "bazel_test: gfootball is not installed in .venv, leaving out the tests tagged" \
       "football (bash scripts/install_football.sh .venv/bin/python installs it)" >&2
  flags+=(--test_tag_filters=-football)
fi
if [[ ! -t 1 ]]; then
  flags+=(--curses=no --color=no --show_progress_rate_limit=30)
fi
targets=(//tests/unit/...)
if [[ $# -gt 0 && "$1" == //* ]]; then targets=(); fi
exec bazel test "${flags[@]}" "${targets[@]}" "$@"
