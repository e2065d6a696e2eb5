#!/usr/bin/env bash
# Sets up .venv if needed, then trains the embedded default (V-trace on CartPole-v1)
# as a Launchpad program with local multiprocessing. Extra arguments go to launch.local,
# e.g. `bash scripts/train.sh --config.actors.num=4`.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$repo/scripts/setup_env.sh"
cd "$repo"
exec .venv/bin/python -m seed_graph.launch.local --config=cartpole_vtrace \
  --logdir="${SEED_GRAPH_LOGDIR:-logs/cartpole_vtrace}" "$@"
