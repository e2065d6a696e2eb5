#!/usr/bin/env bash
# Shows that the BUILD deps are enforced, on a scratch copy of the workspace (the checkout
# is never modified):
#   1. //seed_graph/nodes without "//seed_graph/algos" in its deps: building
#      //tests/unit:test_learner_inference fails (import check: learner.py imports
#      seed_graph.algos.base).
#   2. //tests/unit:test_learner_inference without "//tests:helpers": the build fails the same way.
#   3. An import of an undeclared package hidden from the parser (importlib) in
#      seed_graph/inference/wire.py: the build of //tests/unit:test_wire passes, the
#      test fails at run time with ModuleNotFoundError: project code comes only from
#      runfiles.
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
target=//tests/unit:test_learner_inference
failed=0
log="$scratch/bazel.log"

expect() {  # expect <pass|build-failure|test-failure> <needle> <description>
  local want="$1" needle="$2" what="$3" rc=0
  local test_log="$copy/bazel-testlogs/${target#//}/test.log"; test_log="${test_log/://}"
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
cp tests/unit/BUILD "$scratch/tests.BUILD"

sed -i '\|"//seed_graph/algos",|d' seed_graph/nodes/BUILD
expect build-failure 'imports seed_graph.algos.base' \
  '1. //seed_graph/nodes without //seed_graph/algos'
cp "$scratch/nodes.BUILD" seed_graph/nodes/BUILD

python3 - <<'EOF'
text = open('tests/unit/BUILD').read()
start = text.index('name = "test_learner_inference"')
end = text.index('seed_py_test(', start)
block = text[start:end].replace('        "//tests:helpers",\n', '', 1)
open('tests/unit/BUILD', 'w').write(text[:start] + block + text[end:])
EOF
expect build-failure 'imports tests.helpers' '2. //tests/unit:test_learner_inference without //tests:helpers'
cp "$scratch/tests.BUILD" tests/unit/BUILD

# An import the parser cannot see, of a package the target does not depend on.
cp seed_graph/inference/wire.py "$scratch/wire.py"
printf '\nimport importlib\nimportlib.import_module("seed_graph.envs")\n' >> seed_graph/inference/wire.py
target=//tests/unit:test_wire
expect test-failure "No module named 'seed_graph.envs'" \
  '3. an import hidden from the import check (importlib): fails at run time'
cp "$scratch/wire.py" seed_graph/inference/wire.py
target=//tests/unit:test_learner_inference

expect pass 'PASSED' '4. unmodified'
exit $failed
