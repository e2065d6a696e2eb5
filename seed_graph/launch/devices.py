"""What a learner on this host would see: `python -m seed_graph.launch.devices`.

Run it first on a new GPU machine, and paste its output into an issue. It starts itself
again with a learner's environment (`seed_graph.launch.runs.cuda_libraries`), then prints:
TensorFlow's build (CUDA, cuDNN, the GPU generations it has code for); for each library
TensorFlow 2.8 loads for a GPU, the file the dynamic loader resolves its soname to, or
that it is missing; the NVIDIA driver, if any; and TensorFlow's devices, each GPU with
its compute capability and whether TensorFlow runs it natively or only after the driver
JIT-compiles its PTX. It changes nothing and always exits 0.
"""

import ctypes
import os
import sys
from typing import List, Optional, Sequence

from seed_graph.launch.runs import cuda_libraries

_REEXECUTED = 'SEED_GRAPH_DEVICE_REPORT'  # Set once this runs with a learner's environment.
_RTLD_DI_LINKMAP = 2  # dlinfo's request for a library's link map (glibc's <dlfcn.h>).


class _LinkMap(ctypes.Structure):
  _fields_ = [('l_addr', ctypes.c_void_p), ('l_name', ctypes.c_char_p),
              ('l_ld', ctypes.c_void_p), ('l_next', ctypes.c_void_p),
              ('l_prev', ctypes.c_void_p)]


def _dlinfo():
  for name in (None, 'libdl.so.2'):  # glibc 2.34+ has it in libc, older in libdl.
    try:
      return ctypes.CDLL(name).dlinfo
    except (OSError, AttributeError):
      continue
  return None


def resolve(soname: str) -> Optional[str]:
  """The file the dynamic loader opens for `soname` in this process, or None."""
  try:
    library = ctypes.CDLL(soname)
  except OSError:
    return None
  dlinfo, link_map = _dlinfo(), ctypes.POINTER(_LinkMap)()
  if dlinfo is None or dlinfo(ctypes.c_void_p(library._handle), _RTLD_DI_LINKMAP,
                              ctypes.byref(link_map)) != 0:
    return soname + ' (loaded; its file not known)'
  return link_map.contents.l_name.decode()


def driver_line() -> str:
  path = '/proc/driver/nvidia/version'
  version = ''
  if os.path.exists(path):
    with open(path) as f:
      version = f.readline().strip()
  library = resolve(cuda_libraries.DRIVER_SONAME)
  if library is None:
    return (f'driver: none ({cuda_libraries.DRIVER_SONAME} not found'
            f'{"; " + version if version else ""})')
  return f'driver: {library}; {version or "no " + path}'


def gpu_code(capability: Sequence[int], built_for: Sequence[str]) -> str:
  """How TensorFlow runs a GPU of `capability` (major, minor), given its build's list
  (`sm_75`: machine code, which runs on the same major version from that minor up;
  `compute_80`: PTX, which the driver compiles for any later GPU)."""
  major, number = capability[0], capability[0] * 10 + capability[1]
  machine = [int(code.split('_')[1]) for code in built_for if code.startswith('sm_')]
  if any(m // 10 == major and m <= number for m in machine):
    return 'native code'
  ptx = [int(code.split('_')[1]) for code in built_for if code.startswith('compute_')]
  usable = [p for p in ptx if p <= number]
  if usable:
    return (f'PTX for compute_{max(usable)}, JIT-compiled by the driver on the first '
            'start (minutes; cached in ~/.nv/ComputeCache, up to CUDA_CACHE_MAXSIZE bytes)')
  return 'no code TensorFlow 2.8 can run'


def report_lines() -> List[str]:
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  build = tf.sysconfig.get_build_info()
  built_for = list(build.get('cuda_compute_capabilities', []))
  lines = [f'python: {sys.executable} ({sys.version.split()[0]})',
           f'tensorflow: {tf.__version__}, built for CUDA {build.get("cuda_version")}, '
           f'cuDNN {build.get("cudnn_version")}, GPU code {" ".join(built_for)}',
           f'LD_LIBRARY_PATH (a learner\'s): {os.environ.get("LD_LIBRARY_PATH", "")}',
           'libraries TensorFlow loads for a GPU:']
  for soname in cuda_libraries.SONAMES:
    lines.append(f'  {soname:<20} {resolve(soname) or "missing"}')
  lines.append(driver_line())
  lines.append('devices: ' + ', '.join(d.name for d in tf.config.list_physical_devices()))
  gpus = tf.config.list_physical_devices('GPU')
  if not gpus:
    lines.append('GPUs: none (CUDA_VISIBLE_DEVICES='
                 f'{os.environ.get("CUDA_VISIBLE_DEVICES", "(unset)")!s})')
  for gpu in gpus:
    details = tf.config.experimental.get_device_details(gpu)
    capability = details.get('compute_capability', (0, 0))
    lines.append(f'{gpu.name}: {details.get("device_name", "?")}, compute capability '
                 f'{capability[0]}.{capability[1]}: {gpu_code(capability, built_for)}')
  return lines


def main() -> None:
  if os.environ.get(_REEXECUTED) != '1':  # The loader reads LD_LIBRARY_PATH at start.
    env = dict(os.environ, **cuda_libraries.node_environment('learner'))
    env[_REEXECUTED] = '1'
    env.setdefault('TF_CPP_MIN_LOG_LEVEL', '2')  # TensorFlow's own probing, not ours.
    os.execve(sys.executable, [sys.executable, '-m', 'seed_graph.launch.devices'], env)
  print('\n'.join(report_lines()), flush=True)


if __name__ == '__main__':
  main()
