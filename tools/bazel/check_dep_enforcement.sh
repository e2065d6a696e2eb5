#!/usr/bin/env bash
# Shows that the BUILD deps are enforced, on a scratch copy of the workspace (the checkout
# is never modified):
#   1. //seed_graph/nodes without "//seed_graph/algos" in its deps: building
#      //tests:test_learner_inference fails (import check: vtrace_learner.py imports
#      seed_graph.algos.impala).
#   2. //tests:test_learner_inference without ":helpers": the build fails the same way.
#   3. The same missing dep (in //seed_graph too, which also imports the algos), with
#      those imports hidden from the parser (importlib.import_module): the build passes,
#      the test fails at run time with ModuleNotFoundError, because project code comes
#      only from runfiles.
#   4. The unmodified copy: the test passes.
# Needs bazel and .venv (bash scripts/bazel_test.sh sets both up). Takes a few minutes (a
# second Bazel server for the copy, shut down and removed at the end).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/seed_graph_dep_check.XXXXXX")"
copy="$scratch/ws"
mkdir "$copy"
cleanup() {
  if [[ -f "$copy/WORKSPACE" ]] && cd "$copy" && output_base="$(bazel info output_base 2>/dev/null)"; then
    bazel clean --expunge >/dev/null 2>&1 || true
    bazel shutdown >/dev/null 2>&1 || true
    rm -rf "$output_base"
  fi
  rm -rf "$scratch"
}
trap cleanup EXIT

(cd "$repo" && git ls-files -z --cached --others --exclude-standard | xargs -0 tar cf - 2>/dev/null) \
  | tar xf - -C "$copy"
ln -s "$repo/.venv" "$copy/.venv"
cd "$copy"
flags=(--test_output=errors --test_tag_filters=)
target=//tests:test_learner_inference
failed=0
log="$scratch/bazel.log"

expect() {  # expect <pass|build-failure|test-failure> <needle> <description>
  local want="$1" needle="$2" what="$3" rc=0
  local test_log="$copy/bazel-testlogs/tests/test_learner_inference/test.log"
  rm -f "$test_log"
  bazel test "${flags[@]}" "$target" >"$log" 2>&1 || rc=$?
  [[ -f "$test_log" ]] || test_log=/dev/null
  local got=pass
  if [[ $rc -eq 1 ]]; then got=build-failure; elif [[ $rc -eq 3 ]]; then got=test-failure;
  elif [[ $rc -ne 0 ]]; then got="bazel exit $rc"; fi
  if [[ "$got" == "$want" ]] && grep -qF -- "$needle" "$log" "$test_log"; then
    echo "ok: $what: $got"
    grep -hF -m1 -- "$needle" "$log" "$test_log" | head -1 | sed 's/^/      /' || true
  else
    echo "FAILED: $what: expected $want with '$needle', got $got; last lines:"
    tail -20 "$log" | sed 's/^/      /'
    failed=1
  fi
}

cp seed_graph/nodes/BUILD "$scratch/nodes.BUILD"
cp seed_graph/BUILD "$scratch/seed_graph.BUILD"
cp seed_graph/config_checks.py "$scratch/config_checks.py"
cp tests/BUILD "$scratch/tests.BUILD"
cp -r seed_graph/nodes "$scratch/nodes"

sed -i '\|"//seed_graph/algos",|d' seed_graph/nodes/BUILD
expect build-failure 'imports seed_graph.algos.impala' \
  '1. //seed_graph/nodes without //seed_graph/algos'
cp "$scratch/nodes.BUILD" seed_graph/nodes/BUILD

python3 - <<'EOF'
text = open('tests/BUILD').read()
start = text.index('name = "test_learner_inference"')
end = text.index('seed_py_test(', start)
block = text[start:end].replace('        ":helpers",\n', '', 1)
open('tests/BUILD', 'w').write(text[:start] + block + text[end:])
EOF
expect build-failure 'imports tests.helpers' '2. //tests:test_learner_inference without :helpers'
cp "$scratch/tests.BUILD" tests/BUILD

sed -i '\|"//seed_graph/algos",|d' seed_graph/nodes/BUILD seed_graph/BUILD
sed -i -e 's|^from seed_graph.algos import \([A-Za-z0-9_]*\)$|import importlib; \1 = importlib.import_module("seed_graph.algos.\1")|' \
  seed_graph/nodes/*.py seed_graph/config_checks.py
expect test-failure "No module named 'seed_graph.algos'" \
  '3. the same, with the import hidden from the import check'
rm -rf seed_graph/nodes
cp -r "$scratch/nodes" seed_graph/nodes
cp "$scratch/seed_graph.BUILD" seed_graph/BUILD
cp "$scratch/config_checks.py" seed_graph/config_checks.py

expect pass 'PASSED' '4. unmodified'
exit $failed
