#!/usr/bin/env bash
# Creates .venv (CPython 3.10) inside the repo with every pinned dependency, if it is not
# there yet or requirements changed. Safe to run again: a second run takes about a second.
#
# The interpreter is found in this order:
#   1. $SEED_GRAPH_PYTHON (a path to a python3.10 executable)
#   2. python3.10 on PATH
#   3. `pyenv prefix 3.10`
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$repo/.venv"
stamp="$venv/.seed_graph_stamp"

# Graphviz draws the pictures of programs (launch/program_graph.py); without it they are
# written as DOT only. Installed here when we may (root with apt-get), else left alone.
if ! command -v dot >/dev/null && command -v apt-get >/dev/null && [[ $(id -u) -eq 0 ]]; then
  echo "setup_env: installing graphviz (apt-get)" >&2
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends graphviz >/dev/null \
    || echo "setup_env: could not install graphviz; program pictures stay DOT only" >&2
fi

want_stamp="$(cat "$repo/requirements/constraints.txt" "$repo/setup.py" | sha256sum | cut -d' ' -f1)"
if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want_stamp" ]]; then
  exit 0
fi

is_py310() { [[ -x "$1" ]] && "$1" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 10))' 2>/dev/null; }

python=""
if [[ -n "${SEED_GRAPH_PYTHON:-}" ]]; then
  if ! is_py310 "$SEED_GRAPH_PYTHON"; then
    echo "setup_env: SEED_GRAPH_PYTHON=$SEED_GRAPH_PYTHON is not a CPython 3.10 interpreter." >&2
    exit 1
  fi
  python="$SEED_GRAPH_PYTHON"
elif command -v python3.10 >/dev/null && is_py310 "$(command -v python3.10)"; then
  python="$(command -v python3.10)"
elif command -v pyenv >/dev/null && prefix="$(pyenv prefix 3.10 2>/dev/null)" && is_py310 "$prefix/bin/python"; then
  python="$prefix/bin/python"
fi
if [[ -z "$python" ]]; then
  cat >&2 <<'MSG'
setup_env: no CPython 3.10 found. seed_graph needs exactly 3.10 (dm-launchpad 0.5.2 has no
wheels for newer Pythons). Install one, e.g. `pyenv install 3.10.13` (with --enable-shared:
courier needs libpython), or your distribution's python3.10 + python3.10-venv, then run
again, or point SEED_GRAPH_PYTHON at it.
MSG
  exit 1
fi

echo "setup_env: creating $venv with $python" >&2
[[ -x "$venv/bin/python" ]] || "$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet -c "$repo/requirements/constraints.txt" -e "$repo[test]"
echo "$want_stamp" > "$stamp"
echo "setup_env: ready" >&2
