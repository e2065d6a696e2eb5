#!/usr/bin/env bash
# Sets up .venv if needed (and builds Google Research Football into it), then runs every
# test once:
#   1. the integration and learning tiers with pytest on .venv (CPython 3.10), with the
#      unit test files that need the actors' packages (`helpers.needs`: EnvPool, Football);
#   2. the unit tier under Bazel (scripts/bazel_test.sh: the tests run from their declared
#      files only, so an undeclared import or data file fails) on CPython 3.8 (.venv38,
#      set up while 1 runs), the Python of the Cloud TPU VM runtime's learner host.
# With arguments, runs pytest alone on every tier with them instead, e.g.
# `bash scripts/test.sh -m unit` or `bash scripts/test.sh -k resumes`.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
phase_start=$SECONDS
# Says how long the step before took (docs/testing.md quotes these).
took() {
  echo "test.sh: $1 took $((SECONDS - phase_start)) s" >&2
  phase_start=$SECONDS
}
# --gpu: the CUDA libraries of a GPU learner too, so every tier runs with them installed
# (tests/integration/test_gpu_setup.py checks them; the CPU tests, that nothing changed).
bash "$repo/scripts/setup_env.sh" --gpu
bash "$repo/scripts/install_football.sh" "$repo/.venv/bin/python"
bash "$repo/scripts/install_cluster_tools.sh"
cd "$repo"
if [[ $# -gt 0 ]]; then
  exec .venv/bin/python -m pytest -v -p no:cacheprovider tests "$@"
fi
took "setting up .venv (and Slurm for the multi-host tests)"
# .venv38 is set up meanwhile (mostly unpacking wheels; no apt: the first set-up installed
# graphviz); its log is shown when it is used.
venv38_log="$(mktemp)"
trap 'wait; rm -f "$venv38_log"' EXIT  # No set-up left running after a failure.
bash scripts/setup_env.sh --python=3.8 >"$venv38_log" 2>&1 &
venv38_setup=$!
mapfile -t needs_actor_packages < <(grep -l 'helpers\.needs(' tests/unit/test_*.py)
.venv/bin/python -m pytest -v -p no:cacheprovider --durations=25 tests/integration \
  tests/learning "${needs_actor_packages[@]}"
took "the integration and learning tiers (and ${#needs_actor_packages[@]} unit files on 3.10)"
venv38_status=0
wait "$venv38_setup" || venv38_status=$?
cat "$venv38_log" >&2
if [[ $venv38_status -ne 0 ]]; then
  echo "test.sh: setting up .venv38 failed (exit $venv38_status)" >&2
  exit "$venv38_status"
fi
took "waiting for .venv38 (set up during the tiers before)"
bash scripts/bazel_test.sh --python=3.8
took "the unit tier (Bazel, Python 3.8)"
echo "test.sh: every tier passed in $SECONDS s" >&2
