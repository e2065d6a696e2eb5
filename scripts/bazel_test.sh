#!/usr/bin/env bash
# Runs the Python tests with Bazel (WORKSPACE, BUILD files; docs/testing.md), offline:
# installs Debian's bazel-bootstrap (Bazel 4.2.3) if there is no `bazel`, sets up .venv if
# needed (scripts/setup_env.sh), then `bazel test //tests/unit/...`: the unit tier, whose
# value under Bazel is that every import between packages must be declared (pytest runs
# every tier). Extra arguments go to `bazel test`, e.g. --test_output=all, or other
# targets (//tests/... runs every tier). Exits non-zero if anything fails.
#   --python=3.8 (first argument): the tests run on .venv38 (set up if needed), the
#                Python of the Cloud TPU VM learner host; scripts/test.sh runs the unit
#                tier so.
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

venv=.venv
setup_options=()
flags=()
if [[ $# -gt 0 && "$1" == --python=* ]]; then
  case "$1" in
    --python=3.10) ;;
    --python=3.8) venv=.venv38; setup_options=(--python=3.8)
      # tools/bazel/python3.sh, the toolchain's interpreter, picks the venv by it.
      flags+=(--action_env=SEED_GRAPH_BAZEL_PYTHON=3.8 --test_env=SEED_GRAPH_BAZEL_PYTHON=3.8) ;;
    *) echo "bazel_test: $1: the Pythons are 3.10 and 3.8" >&2; exit 2 ;;
  esac
  shift
fi
bash "$repo/scripts/setup_env.sh" "${setup_options[@]}"
cd "$repo"

has_football='import importlib.util, sys; sys.exit(importlib.util.find_spec("gfootball") is None)'
if ! $venv/bin/python -c "$has_football"; then
  install="bash scripts/install_football.sh $venv/bin/python installs it"
  if [[ $venv == .venv38 ]]; then
    install="the learner host steps no environments; scripts/test.sh runs them on .venv"
  fi
  echo "bazel_test: gfootball is not installed in $venv, leaving out the tests tagged" \
       "football ($install)" >&2
  flags+=(--test_tag_filters=-football)
fi
if [[ ! -t 1 ]]; then
  flags+=(--curses=no --color=no --show_progress_rate_limit=30)
fi
targets=(//tests/unit/...)
if [[ $# -gt 0 && "$1" == //* ]]; then targets=(); fi
exec bazel test "${flags[@]}" "${targets[@]}" "$@"
