#!/usr/bin/env bash
# Sets up .venv if needed (and builds Google Research Football into it), then runs the
# whole test suite with pytest, learning tests included (extra arguments go to pytest),
# then the unit tests under Bazel (scripts/bazel_test.sh), then the learner host's unit
# tests on CPython 3.8 (.venv38), the Python of the Cloud TPU VM runtime.
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
# What the learner host of a TPU VM runs (learner, inference edge, algorithms, the host
# agent and its supervisor), on that runtime's Python 3.8 with its own pins.
bash scripts/setup_env.sh --python=3.8
.venv38/bin/python -m pytest -v -p no:cacheprovider \
  tests/test_learner_inference.py tests/test_batching.py tests/test_inference_server.py \
  tests/test_inference_streams.py tests/test_unrolls.py tests/test_vtrace.py \
  tests/test_impala.py tests/test_r2d2_algos.py tests/test_r2d2_sequences.py \
  tests/test_wire.py tests/test_env_states.py tests/test_placement.py \
  tests/test_supervisor_policy.py tests/test_layers.py tests/test_nonfinite_updates.py \
  tests/test_launcher_watch.py tests/test_device_split.py
