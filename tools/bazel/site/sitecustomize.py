"""Bazel runs only: project code comes from runfiles, never from the checkout.

tools/bazel/python3.sh puts this directory first on PYTHONPATH; Python imports this module
after site-packages' .pth files ran. scripts/setup_env.sh installs the repo in editable
mode, whose .pth adds a finder (or, with older setuptools, the checkout itself on sys.path)
that would resolve any `seed_graph` module from the checkout, so an
import a target does not declare would still work. Both are removed here; third-party
packages in site-packages stay.
"""

import os
import sys


def _from_editable_install(obj):
  module = getattr(obj, '__module__', None) or type(obj).__module__ or ''
  return module.startswith('__editable__')


def _isolate_from_checkout():
  # This file is a symlink (runfiles) to tools/bazel/site/sitecustomize.py in the checkout.
  checkout = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
      os.path.realpath(__file__)))))
  sys.meta_path[:] = [f for f in sys.meta_path if not _from_editable_install(f)]
  sys.path_hooks[:] = [h for h in sys.path_hooks if not _from_editable_install(h)]
  sys.path[:] = [p for p in sys.path
                 if not p.startswith('__editable__')
                 and not (p and os.path.realpath(p) == checkout)]
  sys.path_importer_cache.clear()


_isolate_from_checkout()
