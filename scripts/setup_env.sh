#!/usr/bin/env bash
# Creates .venv (CPython 3.10) inside the repo with every pinned dependency, if it is not
# there yet or requirements changed. Safe to run again: a second run takes about a second.
#
#   --python=3.8             creates .venv38 instead, from requirements/constraints-py38.txt:
#                            the learner host on a Cloud TPU VM, whose runtime
#                            (tpu-vm-tf-2.8.x) ships its TensorFlow for CPython 3.8.
#   --system-site-packages   lets the venv see the system's packages (the TPU runtime's
#                            own TensorFlow build), which then satisfy their pins.
#   --gpu                    also installs the CUDA 11 runtime libraries TensorFlow 2.8
#                            needs for a GPU learner (requirements/gpu-cu11.txt, about
#                            1.6 GB of wheels); the NVIDIA driver must come from the system.
#
# The interpreter is found in this order (X.Y the version asked for):
#   1. $SEED_GRAPH_PYTHON (3.10) or $SEED_GRAPH_PYTHON38 (3.8): a path to that executable
#   2. pythonX.Y on PATH
#   3. `pyenv prefix X.Y`
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version=3.10
venv_options=()
gpu=0
for arg in "$@"; do
  case "$arg" in
    --python=3.10) version=3.10 ;;
    --python=3.8) version=3.8 ;;
    --system-site-packages) venv_options+=(--system-site-packages) ;;
    --gpu) gpu=1 ;;
    *) echo "setup_env: unknown argument $arg (--python=3.10|3.8, --system-site-packages, --gpu)" >&2
       exit 2 ;;
  esac
done
if [[ $version == 3.10 ]]; then
  venv="$repo/.venv"
  constraints="$repo/requirements/constraints.txt"
  python_variable=SEED_GRAPH_PYTHON
else
  venv="$repo/.venv38"
  constraints="$repo/requirements/constraints-py38.txt"
  python_variable=SEED_GRAPH_PYTHON38
fi
stamp="$venv/.seed_graph_stamp"

# Graphviz draws the pictures of programs (seed_graph/launch/program_graph.py); without it they are
# written as DOT only. Installed here when we may (root with apt-get), else left alone.
if ! command -v dot >/dev/null && command -v apt-get >/dev/null && [[ $(id -u) -eq 0 ]]; then
  echo "setup_env: installing graphviz (apt-get)" >&2
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends graphviz >/dev/null \
    || echo "setup_env: could not install graphviz; program pictures stay DOT only" >&2
fi

# The GPU libraries, once the venv is ready; their own stamp, so changing them does not
# rebuild the rest.
install_gpu_libraries() {
  local gpu_requirements="$repo/requirements/gpu-cu11.txt"
  local gpu_stamp="$venv/.seed_graph_gpu_stamp"
  local want
  want="$(sha256sum < "$gpu_requirements" | cut -d' ' -f1)"
  if [[ -f "$gpu_stamp" && "$(cat "$gpu_stamp")" == "$want" ]]; then
    return 0
  fi
  echo "setup_env: installing the CUDA 11 libraries for a GPU learner into $venv" >&2
  "$venv/bin/python" -m pip install --quiet -r "$gpu_requirements"
  echo "$want" > "$gpu_stamp"
}

want_stamp="$(cat "$constraints" "$repo/setup.py" | sha256sum | cut -d' ' -f1)"
if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want_stamp" ]]; then
  [[ $gpu == 0 ]] || install_gpu_libraries
  exit 0
fi

is_version() {
  [[ -x "$1" ]] && "$1" -c "import sys; sys.exit(sys.version_info[:2] != tuple(map(int, '$version'.split('.'))))" 2>/dev/null
}

python=""
chosen="${!python_variable:-}"
if [[ -n "$chosen" ]]; then
  if ! is_version "$chosen"; then
    echo "setup_env: $python_variable=$chosen is not a CPython $version interpreter." >&2
    exit 1
  fi
  python="$chosen"
elif command -v "python$version" >/dev/null && is_version "$(command -v "python$version")"; then
  python="$(command -v "python$version")"
elif command -v pyenv >/dev/null && prefix="$(pyenv prefix "$version" 2>/dev/null)" && is_version "$prefix/bin/python"; then
  python="$prefix/bin/python"
fi
if [[ -z "$python" ]]; then
  cat >&2 <<MSG
setup_env: no CPython $version found. seed_graph runs on 3.10 (dm-launchpad 0.5.2 has no
wheels for newer Pythons), and its learner host on a TPU VM on the runtime's 3.8. Install
one, e.g. \`pyenv install $version\` (3.10: with --enable-shared, courier needs libpython),
or your distribution's python$version + python$version-venv, then run again, or point
$python_variable at it.
MSG
  exit 1
fi

echo "setup_env: creating $venv with $python" >&2
[[ -x "$venv/bin/python" ]] || "$python" -m venv ${venv_options[@]+"${venv_options[@]}"} "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet -c "$constraints" -e "$repo[test]"
echo "$want_stamp" > "$stamp"
[[ $gpu == 0 ]] || install_gpu_libraries
echo "setup_env: ready" >&2
