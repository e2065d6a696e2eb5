#!/usr/bin/env bash
# Sets up .venv if needed (and builds Google Research Football into it), then runs every
# test once:
#   1. the integration tier with pytest on .venv (CPython 3.10), with the unit test files
#      that need the actors' packages (`helpers.needs`: EnvPool, Football), and, at the
#      same time, the unit tier under Bazel (scripts/bazel_test.sh: the tests run from
#      their declared files only, so an undeclared import or data file fails) on CPython
#      3.8 (.venv38, set up first), the Python of the Cloud TPU VM runtime's learner host.
#      The integration tier's tests leave about one of the 2 cores idle (waiting on
#      processes, timeouts and restarts); the unit tier, one test at a time, fills it;
#   2. the learning tier with pytest on .venv, alone: a learning test is bounded in
#      frames, and its learner is the limit.
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
# The unit tier's log is shown once it has ended.
unit_log="$(mktemp)"
trap 'wait; rm -f "$unit_log"' EXIT  # Nothing left running after a failure.
{ bash scripts/setup_env.sh --python=3.8 \
    && bash scripts/bazel_test.sh --python=3.8 --local_test_jobs=1; } >"$unit_log" 2>&1 &
unit_tier=$!
mapfile -t needs_actor_packages < <(grep -l 'helpers\.needs(' tests/unit/test_*.py)
integration_status=0
.venv/bin/python -m pytest -v -p no:cacheprovider --durations=25 tests/integration \
  "${needs_actor_packages[@]}" || integration_status=$?
took "the integration tier (and ${#needs_actor_packages[@]} unit files on 3.10; the unit tier beside it)"
unit_status=0
wait "$unit_tier" || unit_status=$?
cat "$unit_log"
took "the rest of the unit tier (Bazel, Python 3.8; .venv38 set up first)"
learning_status=0
.venv/bin/python -m pytest -v -p no:cacheprovider --durations=10 tests/learning \
  || learning_status=$?
took "the learning tier"
if [[ $integration_status -ne 0 || $unit_status -ne 0 || $learning_status -ne 0 ]]; then
  echo "test.sh: the integration tier exited $integration_status, the unit tier" \
       "$unit_status, the learning tier $learning_status" >&2
  exit 1
fi
echo "test.sh: every tier passed in $SECONDS s" >&2
