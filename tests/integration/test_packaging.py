"""Installing the package puts one top-level name, `seed_graph`, into an environment,
with its launchers, its presets and the cloud set-up script beside the launcher."""

import os
import shutil
import subprocess
import sys

from tests import helpers


def test_an_install_adds_only_seed_graph(tmp_path):
  # From a copy of what setup.py packages: building in the checkout would leave build/.
  source, target = tmp_path / 'source', tmp_path / 'site'
  shutil.copytree(os.path.join(helpers.REPO, 'seed_graph'), source / 'seed_graph',
                  ignore=shutil.ignore_patterns('__pycache__'))
  shutil.copy(os.path.join(helpers.REPO, 'setup.py'), source)
  subprocess.run([sys.executable, '-m', 'pip', 'install', '--quiet', '--no-deps',
                  '--no-build-isolation', '--no-index', '--target', str(target),
                  str(source)], check=True, capture_output=True, timeout=300)
  top = sorted(name for name in os.listdir(target) if not name.endswith('-info'))
  assert top == ['seed_graph']
  assert (target / 'seed_graph' / 'launch' / 'local.py').is_file()
  assert (target / 'seed_graph' / 'launch' / 'cloud' / 'setup_host.sh').is_file()
  assert (target / 'seed_graph' / 'configs' / 'cartpole_vtrace.py').is_file()
  assert (target / 'seed_graph' / 'pretrained' / 'Pong.npz').is_file()  # A shipped agent.
  # The installed copy imports from anywhere, without the checkout.
  result = subprocess.run(
      [sys.executable, '-c', 'import seed_graph.configs.cartpole_vtrace as c; '
       'import seed_graph.launch.runs.config_args; print(c.get_config().algorithm)'],
      cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(target)), capture_output=True,
      text=True, timeout=300)
  assert result.returncode == 0, result.stderr[-3000:]
  assert result.stdout.strip() == 'vtrace'
