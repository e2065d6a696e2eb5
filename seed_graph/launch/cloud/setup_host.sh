#!/usr/bin/env bash
# Prepares one host of a multi-host run inside its unpacked code bundle (launch.cluster
# runs this over ssh). Safe to run again; a second run takes seconds.
#   setup_host.sh           an actor VM: .venv on CPython 3.10 (pyenv builds one when the
#                           image has none).
#   setup_host.sh --tpu_vm  the learner's TPU VM: .venv38 on the runtime's own Python 3.8
#                           (tpu-vm-tf-2.8.x), seeing the runtime's TensorFlow build, which
#                           then satisfies the tensorflow pin instead of a CPU wheel.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
if [[ "${1:-}" == --tpu_vm ]]; then
  if ! python3.8 -c 'import ensurepip' 2>/dev/null; then  # Ubuntu splits venv out.
    sudo apt-get update -qq
    sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3.8-venv
  fi
  SEED_GRAPH_PYTHON38="$(command -v python3.8)" \
    bash scripts/setup_env.sh --python=3.8 --system-site-packages
  exit 0
fi
# Debian images lack a CPython 3.10; pyenv builds one when there is none.
if ! command -v python3.10 >/dev/null && ! command -v pyenv >/dev/null; then
  sudo apt-get update -qq
  sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq git build-essential \
    libssl-dev zlib1g-dev libbz2-dev libreadline-dev libsqlite3-dev libffi-dev liblzma-dev
  curl -fsSL https://pyenv.run | bash
  export PATH="$HOME/.pyenv/bin:$PATH"
  PYTHON_CONFIGURE_OPTS=--enable-shared pyenv install -s 3.10.13
fi
export PATH="$HOME/.pyenv/bin:$PATH"
bash scripts/setup_env.sh
