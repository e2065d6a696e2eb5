"""The learner on a GPU, without one: where the CUDA libraries of the pip packages are
found, the environment each node process starts with (only a learner sees GPUs), a GPU
count the host lacks refused at the learner's start in one line, and how the device
report judges a GPU's generation. (tests/unit/test_device_split.py trains with the 'gpu'
strategy on stand-in devices; tests/integration/test_gpu_setup.py runs the report.)"""

import os

import ml_collections
import pytest

from seed_graph.algos import learner_devices
from seed_graph.launch import devices as device_report
from seed_graph.launch.runs import cuda_libraries
from seed_graph.launch.supervision import node_commands

_TF28_BUILD = ['sm_35', 'sm_50', 'sm_60', 'sm_70', 'sm_75', 'compute_80']


def _site(root, *parts):
  """A site-packages with `nvidia/<part>/lib` for each part."""
  for part in parts:
    (root / 'nvidia' / part / 'lib').mkdir(parents=True)
  return str(root)


def test_the_pip_packages_folders_are_found_in_path_order_once(tmp_path):
  first = _site(tmp_path / 'a', 'cudnn', 'cublas')
  second = _site(tmp_path / 'b', 'cuda_runtime')
  found = cuda_libraries.package_folders([first, second, first, str(tmp_path / 'none')])
  assert found == [os.path.join(first, 'nvidia', 'cublas', 'lib'),
                   os.path.join(first, 'nvidia', 'cudnn', 'lib'),
                   os.path.join(second, 'nvidia', 'cuda_runtime', 'lib')]


def test_a_learners_library_path_puts_the_packages_first_and_keeps_the_rest():
  assert cuda_libraries.library_path('/opt/x:/p/one::/opt/y', ['/p/one', '/p/two']) == (
      '/p/one:/p/two:/opt/x:/opt/y')


def test_only_a_learner_sees_gpus(tmp_path, monkeypatch):
  site = _site(tmp_path, 'cuda_runtime')
  monkeypatch.setattr('sys.path', [site])
  monkeypatch.setenv('LD_LIBRARY_PATH', '/usr/local/lib')
  for role in ('acting', 'store', 'other'):
    assert cuda_libraries.node_environment(role) == {'CUDA_VISIBLE_DEVICES': ''}
  assert cuda_libraries.node_environment('learner') == {
      'LD_LIBRARY_PATH': os.path.join(site, 'nvidia', 'cuda_runtime', 'lib') +
                         ':/usr/local/lib'}
  monkeypatch.setattr('sys.path', [str(tmp_path / 'empty')])
  assert cuda_libraries.node_environment('learner') == {}  # No packages: as before.


def test_a_programs_actors_evaluators_and_replay_start_with_every_gpu_hidden(tmp_path):
  from seed_graph.configs import cartpole_r2d2  # pylint: disable=g-import-not-at-top
  from seed_graph.programs import central_inference  # pylint: disable=g-import-not-at-top
  config = cartpole_r2d2.get_config()
  config.logdir = str(tmp_path)
  commands = node_commands.program_commands(central_inference.make_program(config))
  hidden = {c.group for c in commands if c.env.get('CUDA_VISIBLE_DEVICES') == ''}
  assert hidden == {'actor', 'evaluator', 'replay'}, [(c.name, c.env) for c in commands]


def _learner(inference, training):
  return ml_collections.ConfigDict({'inference_devices': inference,
                                    'training_devices': training,
                                    'training_strategy': 'gpu'})


@pytest.mark.parametrize('inference,training,asked', [
    (0, 0, 'needs 1 GPU (both device counts 0: one does both)'),
    (1, 2, 'needs 3 GPUs (learner.inference_devices=1 + learner.training_devices=2)')])
def test_a_gpu_count_the_host_lacks_fails_at_the_learners_start(inference, training, asked,
                                                                monkeypatch):
  monkeypatch.setattr(learner_devices, 'list_gpus', lambda: ['/device:GPU:0'][:inference])
  with pytest.raises(RuntimeError) as raised:
    learner_devices.make_learner_devices(_learner(inference, training))
  message = str(raised.value)
  assert "learner.training_strategy='gpu'" in message and asked in message, message
  assert f'sees {min(inference, 1)}' in message and '\n' not in message, message


def test_the_report_says_which_gpus_run_natively_and_which_compile_ptx_first():
  assert device_report.gpu_code((7, 5), _TF28_BUILD) == 'native code'  # Turing.
  assert device_report.gpu_code((6, 1), _TF28_BUILD) == 'native code'  # sm_60's code.
  assert device_report.gpu_code((3, 7), _TF28_BUILD) == 'native code'  # K80: sm_35's.
  assert device_report.gpu_code((8, 0), _TF28_BUILD).startswith('PTX for compute_80')
  ada = device_report.gpu_code((8, 9), _TF28_BUILD)
  assert ada.startswith('PTX for compute_80'), ada
  assert device_report.gpu_code((3, 0), _TF28_BUILD) == 'no code TensorFlow 2.8 can run'
