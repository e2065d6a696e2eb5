#!/usr/bin/env bash
# Prepares one host of a multi-host run (launch.cluster copies the code bundle here and
# runs this over ssh): unpacks the bundle into ~/seed_graph and sets up its .venv with
# the project's own script. Safe to run again; a second run takes seconds.
set -euo pipefail
bundle="${1:?usage: setup_host.sh BUNDLE.tar.gz}"
mkdir -p "$HOME/seed_graph"
tar -xzf "$bundle" -C "$HOME"
cd "$HOME/seed_graph"
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
