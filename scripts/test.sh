#!/usr/bin/env bash
# Sets up .venv if needed, then runs every test once:
#   1. the integration tier with pytest on .venv (CPython 3.10), with the unit test files
#      that need the actors' packages (`helpers.needs`: EnvPool, Football), and, at the
#      same time, in the background: the unit tier under Bazel (scripts/bazel_test.sh:
#      the tests run from their declared files only, so an undeclared import or data file
#      fails) on CPython 3.8 (.venv38, set up first), the Python of the Cloud TPU VM
#      runtime's learner host, and then Google Research Football's build into .venv.
#      The integration tier's tests leave about one of the 2 cores idle (waiting on
#      processes, timeouts and restarts); the background work fills it. The tests that
#      need Football (marked `football`) run once it is built;
#   2. the learning tier with pytest on .venv, alone: a learning test is bounded in
#      frames, and its learner is the limit.
# With arguments, builds Football first and runs pytest alone on every tier with them
# instead, e.g. `bash scripts/test.sh -m unit` or `bash scripts/test.sh -k resumes`.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
phase_start=$SECONDS
# Says how long the step before took (docs/testing.md quotes these).
took() {
  echo "test.sh: $* took $((SECONDS - phase_start)) s" >&2
  phase_start=$SECONDS
}
# --gpu: the CUDA libraries of a GPU learner too, so every tier runs with them installed
# (tests/integration/test_gpu_setup.py checks them; the CPU tests, that nothing changed).
bash "$repo/scripts/setup_env.sh" --gpu
bash "$repo/scripts/install_cluster_tools.sh"
cd "$repo"
if [[ $# -gt 0 ]]; then
  bash scripts/install_football.sh .venv/bin/python
  exec .venv/bin/python -m pytest -v -p no:cacheprovider tests "$@"
fi
took "setting up .venv (and Slurm for the multi-host tests)"
scratch="$(mktemp -d)"
trap 'wait; rm -rf "$scratch"' EXIT  # Nothing left running after a failure.
# The background work: each step's log, exit status and seconds go to $scratch.
step() {
  local name=$1 start=$SECONDS status=0
  shift
  "$@" >"$scratch/$name.log" 2>&1 || status=$?
  echo "$status $((SECONDS - start))" >"$scratch/$name.status"
}
unit_tier() {
  bash scripts/setup_env.sh --python=3.8 \
    && bash scripts/bazel_test.sh --python=3.8 --local_test_jobs=1
}
{ step unit unit_tier; step football bash scripts/install_football.sh .venv/bin/python; } &
background=$!
football_file=tests/unit/test_football_env.py  # Imports gfootball as it is collected.
mapfile -t needs_actor_packages < <(grep -l 'helpers\.needs(' tests/unit/test_*.py \
                                    | grep -v -x "$football_file")
integration_status=0
.venv/bin/python -m pytest -v -p no:cacheprovider --durations=25 -m 'not football' \
  tests/integration "${needs_actor_packages[@]}" || integration_status=$?
took "the integration tier but Football's tests (and ${#needs_actor_packages[@]} unit files" \
     "on 3.10; the background work beside it)"
wait "$background"
read -r unit_status unit_seconds <"$scratch/unit.status"
read -r football_status football_seconds <"$scratch/football.status"
cat "$scratch/unit.log" "$scratch/football.log"
echo "test.sh: in the background, .venv38 and the unit tier (Bazel, Python 3.8) took" \
     "$unit_seconds s, then Football's build $football_seconds s" >&2
took "waiting for the background work"
football_tests_status=0
.venv/bin/python -m pytest -v -p no:cacheprovider -m football tests/integration \
  "$football_file" || football_tests_status=$?
took "the tests that need Football"
learning_status=0
.venv/bin/python -m pytest -v -p no:cacheprovider --durations=10 tests/learning \
  || learning_status=$?
took "the learning tier"
statuses=("$integration_status" "$unit_status" "$football_status" "$football_tests_status"
          "$learning_status")
if [[ "${statuses[*]}" != "0 0 0 0 0" ]]; then
  echo "test.sh: exit statuses: the integration tier $integration_status, the unit tier" \
       "$unit_status, Football's build $football_status, the tests that need Football" \
       "$football_tests_status, the learning tier $learning_status" >&2
  exit 1
fi
echo "test.sh: every tier passed in $SECONDS s" >&2
