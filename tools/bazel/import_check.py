"""Build-time check behind `seed_py_library` / `seed_py_test` (tools/bazel/defs.bzl).

Every import of project code (a module under one of the --project_package names) in the
checked files must name a module that is among the target's own srcs or the srcs of one
of its *direct* deps; the packages above it (their `__init__.py`) must be reachable
through deps at all. Otherwise the build fails and says which file to add to which target.
Third-party imports are not checked (they come from .venv). Imports built from strings
(`importlib.import_module`) are not seen; at run time the test still only finds modules
in its runfiles.

  import_check.py --label //pkg:name --output stamp \
      --check pkg/a.py ... --direct pkg/a.py dep/b.py ... --transitive ... \
      --project_package seed_graph ...
"""

import argparse
import ast
import sys


def _module_of(path):
  """'seed_graph/algos/__init__.py' -> ('seed_graph.algos', True);
  'seed_graph/launch/local.py' -> ('seed_graph.launch.local', False)."""
  parts = path[:-len('.py')].split('/')
  if parts[-1] == '__init__':
    return '.'.join(parts[:-1]), True
  return '.'.join(parts), False


class _Modules:
  """The modules that a set of source files provides."""

  def __init__(self, paths):
    self.files = {}  # module name -> file
    self.packages = set()
    for path in paths:
      if not path.endswith('.py'):
        continue
      name, is_package = _module_of(path)
      self.files[name] = path
      if is_package:
        self.packages.add(name)

  def __contains__(self, name):
    return name in self.files


def _top_level_names(path):
  """Names a package's __init__.py binds (so `from pkg import name` needs no submodule)."""
  with open(path, encoding='utf-8') as f:
    tree = ast.parse(f.read(), path)
  names = set()
  for node in tree.body:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
      names.add(node.name)
    elif isinstance(node, (ast.Import, ast.ImportFrom)):
      for alias in node.names:
        names.add((alias.asname or alias.name).split('.')[0])
    else:
      for child in ast.walk(node):
        if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
          names.add(child.id)
  return names


def _where(name):
  """Files and (per-directory) targets that could provide module `name`."""
  path = name.replace('.', '/')
  directory = path.rpartition('/')[0]
  return (f'{path}.py or {path}/__init__.py',
          f'//{directory} or //{path}' if directory else f'//{path}')


def _project_imports(path, all_modules, project_packages):
  """(line, module) for each import in `path` of a module of the project's packages."""
  own_module, own_is_package = _module_of(path)
  own_package = own_module if own_is_package else own_module.rpartition('.')[0]
  with open(path, encoding='utf-8') as f:
    tree = ast.parse(f.read(), path)
  for node in ast.walk(tree):
    if isinstance(node, ast.Import):
      for alias in node.names:
        if alias.name.split('.')[0] in project_packages:
          yield node.lineno, alias.name
    elif isinstance(node, ast.ImportFrom):
      if node.level:
        base_parts = own_package.split('.')
        if node.level > 1:
          base_parts = base_parts[:-(node.level - 1)]
        base = '.'.join(base_parts + ([node.module] if node.module else []))
      else:
        base = node.module
      if not base or base.split('.')[0] not in project_packages:
        continue
      for alias in node.names:
        yield node.lineno, _imported_from(base, alias.name, all_modules)


def _imported_from(base, name, all_modules):
  """The module that `from base import name` uses."""
  candidate = f'{base}.{name}'
  if name != '*' and candidate in all_modules:
    return candidate  # `from pkg import module`: the submodule is what is used.
  if name == '*' or (base in all_modules and (
      base not in all_modules.packages
      or name in _top_level_names(all_modules.files[base]))):
    return base  # A name defined in module (or package) `base`.
  return candidate  # A submodule nobody declared (or a package nobody declared).


def check(label, checked, direct, transitive, project_packages):
  """Errors for imports in `checked` of project modules that are not in `label`'s direct
  deps (or whose parent packages are in no dep at all)."""
  direct_modules = _Modules(list(checked) + list(direct))
  all_modules = _Modules(list(checked) + list(direct) + list(transitive))
  errors = []

  def require(path, line, name):
    """`name` must be a module of a direct dep; its parent packages reachable at all."""
    parts = name.split('.')
    for i in range(1, len(parts)):
      parent = '.'.join(parts[:i])
      if parent not in all_modules:
        errors.append(f'{path}:{line}: imports {name}, but package {parent} '
                      f'({parent.replace(".", "/")}/__init__.py) is in no dep of {label}: '
                      f'add //{parent.replace(".", "/")} (or whichever target has that '
                      f'file) to its deps.')
        return
    if name in direct_modules:
      return
    files, targets = _where(name)
    if name in all_modules:
      errors.append(f'{path}:{line}: imports {name}, which {label} only gets through '
                    f'other deps: add the target with {files} ({targets}) to its own deps.')
    else:
      errors.append(f'{path}:{line}: imports {name}, which is in no dep of {label}: add '
                    f'the target with {files} ({targets}) to its deps.')

  for path in checked:
    if path.endswith('.py'):
      for line, name in _project_imports(path, all_modules, project_packages):
        require(path, line, name)
  return errors


def main(argv):
  parser = argparse.ArgumentParser(fromfile_prefix_chars='@')
  parser.add_argument('--label', required=True)
  parser.add_argument('--output', required=True)
  parser.add_argument('--check', action='append', default=[])
  parser.add_argument('--direct', action='append', default=[])
  parser.add_argument('--transitive', action='append', default=[])
  parser.add_argument('--project_package', action='append', default=[])
  args = parser.parse_args(argv)
  errors = check(args.label, args.check, args.direct, args.transitive,
                 set(args.project_package))
  if errors:
    print(f'Undeclared project imports in {args.label}:', file=sys.stderr)
    for error in dict.fromkeys(errors):
      print('  ' + error, file=sys.stderr)
    return 1
  with open(args.output, 'w') as f:
    f.write('ok\n')
  return 0


if __name__ == '__main__':
  sys.exit(main(sys.argv[1:]))
