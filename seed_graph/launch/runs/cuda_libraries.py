"""The CUDA libraries TensorFlow 2.8 loads for a GPU, where this Python has them, and the
environment each node process starts with so that only the learner sees a GPU.

TensorFlow 2.8's Linux wheel is built against CUDA 11.2 and cuDNN 8.1 and opens each
library by its soname (`SONAMES`), through the dynamic loader. `bash scripts/setup_env.sh
--gpu` installs NVIDIA's pip packages of the CUDA 11 runtime (`requirements/gpu-cu11.txt`),
which put them in `site-packages/nvidia/<part>/lib`; TensorFlow 2.8 does not look there by
itself. The loader reads `LD_LIBRARY_PATH` once, when a process starts, so a learner's
process is started with those folders first on it (`node_environment`). Every other node
starts with `CUDA_VISIBLE_DEVICES=` (empty): actors, evaluators and the replay never
create a GPU context or take GPU memory, wherever they run.
"""

import glob
import os
import sys
from typing import Dict, List, Sequence

# What TensorFlow 2.8 asks the loader for (its dso_loader), in the order it loads them.
SONAMES = ('libcudart.so.11.0', 'libcublas.so.11', 'libcublasLt.so.11', 'libcufft.so.10',
           'libcurand.so.10', 'libcusolver.so.11', 'libcusparse.so.11', 'libcudnn.so.8')
DRIVER_SONAME = 'libcuda.so.1'  # The driver's library: comes with the driver, not pip.
_GPU_ROLE = 'learner'  # The supervision role whose processes see GPUs.


def package_folders(search_path: Sequence[str] = ()) -> List[str]:
  """Every `nvidia/<part>/lib` folder on `search_path` (default: this Python's
  sys.path), in path order, each once."""
  folders = []
  for entry in search_path or sys.path:
    for folder in sorted(glob.glob(os.path.join(entry or '.', 'nvidia', '*', 'lib'))):
      folder = os.path.realpath(folder)
      if folder not in folders:
        folders.append(folder)
  return folders


def library_path(existing: str = '', folders: Sequence[str] = ()) -> str:
  """`LD_LIBRARY_PATH` for a process that should load the pip packages' libraries:
  their folders first, then `existing`'s entries not already named."""
  entries = list(folders or package_folders())
  entries += [entry for entry in existing.split(os.pathsep)
              if entry and entry not in entries]
  return os.pathsep.join(entries)


def node_environment(role: str) -> Dict[str, str]:
  """What a node of supervision role `role` starts with, beside the launcher's own
  environment (see the module docstring)."""
  if role != _GPU_ROLE:
    return {'CUDA_VISIBLE_DEVICES': ''}
  folders = package_folders()
  if not folders:
    return {}
  return {'LD_LIBRARY_PATH': library_path(os.environ.get('LD_LIBRARY_PATH', ''), folders)}
