#!/usr/bin/env bash
# Sets up .venv if needed, then trains the embedded default (V-trace on CartPole-v1)
# as a Launchpad program with local multiprocessing. Extra arguments go to launch.local,
# e.g. `bash scripts/train.sh --config.actors.num=4`. A first argument `--gpu` sets up the
# CUDA libraries too and puts the learner on this host's GPU (docs/devices.md).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [[ ${1:-} == --gpu ]]; then
  shift
  bash "$repo/scripts/setup_env.sh" --gpu
  set -- --config.learner.training_strategy=gpu "$@"
else
  bash "$repo/scripts/setup_env.sh"
fi
cd "$repo"
exec .venv/bin/python -m seed_graph.launch.local --config=cartpole_vtrace \
  --logdir="${SEED_GRAPH_LOGDIR:-logs/cartpole_vtrace}" "$@"
