#!/usr/bin/env bash
# Sets up .venv if needed (and builds Google Research Football into it), then runs every
# test once:
#   1. the integration tier with pytest on .venv (CPython 3.10), with the unit test files
#      that need the actors' packages (`helpers.needs`: EnvPool, Football);
#   2. the learning tier with pytest on .venv and, at the same time, the unit tier under
#      Bazel (scripts/bazel_test.sh: the tests run from their declared files only, so an
#      undeclared import or data file fails) on CPython 3.8 (.venv38, set up while 1
#      runs), the Python of the Cloud TPU VM runtime's learner host. A learning test
#      keeps about 1.2 of the 2 cores busy (its learner is the limit) and is bounded in
#      frames, not seconds; the unit tier, one test at a time, takes most of the rest.
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
  "${needs_actor_packages[@]}"
took "the integration tier (and ${#needs_actor_packages[@]} unit files on 3.10)"
venv38_status=0
wait "$venv38_setup" || venv38_status=$?
cat "$venv38_log" >&2
if [[ $venv38_status -ne 0 ]]; then
  echo "test.sh: setting up .venv38 failed (exit $venv38_status)" >&2
  exit "$venv38_status"
fi
took "waiting for .venv38 (set up during the tier before)"
bazel_log="$(mktemp)"
trap 'wait; rm -f "$venv38_log" "$bazel_log"' EXIT
bash scripts/bazel_test.sh --python=3.8 --local_test_jobs=1 >"$bazel_log" 2>&1 &
unit_tier=$!
learning_status=0
.venv/bin/python -m pytest -v -p no:cacheprovider --durations=10 tests/learning \
  || learning_status=$?
took "the learning tier (the unit tier running beside it)"
unit_status=0
wait "$unit_tier" || unit_status=$?
cat "$bazel_log"
took "the rest of the unit tier (Bazel, Python 3.8)"
if [[ $learning_status -ne 0 || $unit_status -ne 0 ]]; then
  echo "test.sh: the learning tier exited $learning_status, the unit tier $unit_status" >&2
  exit 1
fi
echo "test.sh: every tier passed in $SECONDS s" >&2
