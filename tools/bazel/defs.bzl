"""seed_py_library / seed_py_test: the native py_library / py_test plus an import check.

Each target gets a `<name>_imports` action (tools/bazel/import_check.py) that parses its
srcs and fails the build if one of them imports project code (seed_graph, examples,
tests, benchmarks) that is neither in its own srcs nor in the srcs of a direct dep. The py_library /
py_test carries that action's output as data, so `bazel test` cannot run a test whose
code, or any code it depends on, has an undeclared import. At run time the test finds
project code only in its runfiles (tools/bazel/python3.sh), so an import hidden from the
parser (importlib) fails there instead.

Tests run under pytest (tools/bazel/pytest_main.py) with tests/conftest.py.
"""

PROJECT_PACKAGES = ["seed_graph", "examples", "tests", "benchmarks"]

def _py_srcs(files):
    return [f for f in files if f.extension == "py"]

def _import_check_impl(ctx):
    own = _py_srcs(ctx.files.srcs)
    direct = []
    transitive = []
    for dep in ctx.attr.deps:
        # py_library's default outputs are its own srcs; PyInfo has everything below it.
        direct.extend(_py_srcs(dep[DefaultInfo].files.to_list()))
        transitive.append(dep[PyInfo].transitive_sources)
    everything = depset(own + direct, transitive = transitive)

    stamp = ctx.actions.declare_file(ctx.label.name + ".ok")
    args = ctx.actions.args()
    args.add(ctx.file._checker)
    args.use_param_file("@%s")
    args.set_param_file_format("multiline")
    args.add("--label", str(ctx.label)[:-len("_imports")])
    args.add("--output", stamp)
    args.add_all(PROJECT_PACKAGES, before_each = "--project_package")
    args.add_all(own, before_each = "--check")
    args.add_all(direct, before_each = "--direct")
    args.add_all(everything, before_each = "--transitive")
    ctx.actions.run(
        executable = ctx.executable._python,
        arguments = [args],
        inputs = depset([ctx.file._checker], transitive = [everything]),
        outputs = [stamp],
        mnemonic = "PyImportCheck",
        progress_message = "Checking the project imports of %s" % ctx.label,
    )
    # In runfiles, so that building anything that depends on the target runs the check.
    return [DefaultInfo(files = depset([stamp]), runfiles = ctx.runfiles(files = [stamp]))]

_import_check = rule(
    implementation = _import_check_impl,
    attrs = {
        "srcs": attr.label_list(allow_files = [".py"]),
        "deps": attr.label_list(providers = [PyInfo]),
        "_checker": attr.label(
            default = "//tools/bazel:import_check.py",
            allow_single_file = True,
        ),
        "_python": attr.label(
            default = "//tools/bazel:python3.sh",
            allow_single_file = True,
            executable = True,
            cfg = "exec",
        ),
    },
)

def _check_imports(name, srcs, deps, testonly):
    _import_check(
        name = name + "_imports",
        srcs = srcs,
        deps = deps,
        testonly = testonly,
        visibility = ["//visibility:private"],
    )
    return ":" + name + "_imports"

def seed_py_library(name, srcs, deps = [], data = [], testonly = False, **kwargs):
    """A py_library whose project imports must be in its srcs or its direct deps."""
    native.py_library(
        name = name,
        srcs = srcs,
        deps = deps,
        data = data + [_check_imports(name, srcs, deps, testonly)],
        srcs_version = "PY3",
        testonly = testonly,
        **kwargs
    )

TIER_SIZES = {"unit": "medium", "integration": "large", "learning": "enormous"}

def seed_py_test(name, srcs, deps = [], data = [], args = [], tags = [], **kwargs):
    """A py_test running pytest on `srcs` (test_*.py files of this package).

    The package is a test tier (tests/unit, tests/integration, tests/learning): its name
    is the test's tag and sets its size. `deps`: what the test files import. `data`: what
    they use otherwise, e.g. //seed_graph/launch when a test runs `python -m seed_graph.launch.local`
    in a subprocess.
    """
    tier = native.package_name().split("/")[-1]
    if tier not in TIER_SIZES:
        fail("seed_py_test belongs in tests/unit, tests/integration or tests/learning")
    deps = deps + ["//tests:conftest", ":init"]
    tags = tags + [tier]
    kwargs.setdefault("size", TIER_SIZES[tier])
    native.py_test(
        name = name,
        srcs = srcs + ["//tools/bazel:pytest_main.py"],
        main = "//tools/bazel:pytest_main.py",
        args = ["%s/%s" % (native.package_name(), src) for src in srcs] + args,
        deps = deps,
        data = data + [_check_imports(name, srcs, deps, True)],
        python_version = "PY3",
        srcs_version = "PY3",
        tags = tags,
        **kwargs
    )

def every_test_file_has_a_target(name):
    """A test that fails while a test_*.py file of this package has no py_test.

    Call it last in the BUILD file. Each test_x.py needs a seed_py_test named test_x,
    so a new test file cannot be silently left out of `bazel test`.
    """
    tests = [
        rule_name
        for rule_name, rule in native.existing_rules().items()
        if rule["kind"] == "py_test"
    ]
    missing = [
        f
        for f in native.glob(["test_*.py"])
        if f[:-len(".py")] not in tests
    ]
    native.py_test(
        name = name,
        srcs = ["//tools/bazel:missing_test_targets.py"],
        main = "//tools/bazel:missing_test_targets.py",
        args = [native.package_name() + "/BUILD"] + missing,
        python_version = "PY3",
        srcs_version = "PY3",
        size = "small",
    )

def test_files(name):
    """The package's test files and its data/ folder as a filegroup, for what links them.

    tests/integration:test_doc_links checks the docs' links to them.
    """
    native.filegroup(
        name = name,
        srcs = native.glob(["test_*.py", "data/**"]),
    )
