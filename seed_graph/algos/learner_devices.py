"""The learner's devices: which serve inference, which train, and the distribution
strategies over them (SEED RL's split of an accelerator host's cores).

`learner.inference_devices` and `learner.training_devices` count devices; both 0 (the
default) is the learner as it always was: one default device for both, no strategy.
With a split, on `learner.training_strategy`:
- 'mirrored': the host's CPU split into `inference + training` logical devices (how the
  tests run it; the devices share one thread pool, so this splits the work's placement,
  not the cores);
- 'gpu': the GPUs this process sees, in TensorFlow's order (`CUDA_VISIBLE_DEVICES`
  chooses them); with both counts 0, the first GPU does both;
- 'tpu': the TPU VM's own cores (`TPUClusterResolver(tpu='local')`).

The model's variables are created once, inside `variable_scope()`, mirrored to every
device by a strategy over all of them, listed training devices first. Training runs on a
second strategy over the training devices alone: its replica i is device i of that list,
so it reads copy i. Gradients are averaged across the training replicas and the one
result is applied on every device, so after a step every copy, on the inference devices
too, holds the same new values (`gradient_step`). Inference device k runs the traced
policy inside `inference_scope(k)`: on that device, reading its own copy.

Lag: inference reads whatever its copy holds when each variable is read, so a batch
served during an update may mix the values from just before and just after that one
step; it never sees values older than the step in flight.
"""

import contextlib
from typing import Callable, Dict, List, Sequence, Tuple

import numpy as np
import tensorflow as tf
import ml_collections

from seed_graph.config import schema as config_schema
from seed_graph.algos import optimization

STRATEGIES = ('mirrored', 'gpu', 'tpu')
MAX_DEVICES = 64  # A guard against typos: a TPU VM host has 8 cores, this CPU 2.

# The `learner` section's device keys, in every algorithm's learner section.
DEVICE_KEYS = {
    'inference_devices': config_schema.Key(
        0, 'Devices serving inference; with training_devices 0 too, one device does '
        'both (no distribution strategy).', config_schema.non_negative),
    'training_devices': config_schema.Key(
        0, 'Devices training, gradients averaged across them; the training batch must '
        'split evenly.', config_schema.non_negative),
    'training_strategy': config_schema.Key(
        'mirrored', "'mirrored': the CPU split into that many logical devices; 'gpu': "
        "this host's GPUs (both counts 0: one GPU does both); 'tpu': the TPU VM's cores "
        '(needs inference.jit_compile).',
        config_schema.one_of(*STRATEGIES)),
}


def _split_cpu(num_devices: int) -> List[str]:
  """The CPU as `num_devices` logical devices; must run before TensorFlow initializes."""
  cpu = tf.config.list_physical_devices('CPU')[0]
  current = tf.config.get_logical_device_configuration(cpu) or []
  if len(current) != num_devices:
    try:
      tf.config.set_logical_device_configuration(
          cpu, [tf.config.LogicalDeviceConfiguration()] * num_devices)
    except RuntimeError as e:
      raise RuntimeError(
          f'learner.inference_devices + learner.training_devices = {num_devices} logical '
          'CPU devices: TensorFlow was already initialized in this process with '
          f'{max(1, len(current))}; the split must be made before the first TensorFlow '
          'operation runs') from e
  return [d.name for d in tf.config.list_logical_devices('CPU')]


def list_gpus() -> List[str]:
  """This process's GPUs as TensorFlow names them, each growing its memory as needed
  (not all of it up front: a population's learners may share a GPU). Must run before
  TensorFlow initializes its GPUs."""
  gpus = tf.config.list_physical_devices('GPU')
  for gpu in gpus:
    try:
      tf.config.experimental.set_memory_growth(gpu, True)
    except RuntimeError:  # Already initialized (set before, in this process): kept.
      pass
  return [d.name for d in tf.config.list_logical_devices('GPU')]


def _gpus_for(learner_config: ml_collections.ConfigDict, wanted: int) -> List[str]:
  """This host's GPUs if there are `wanted`, else a RuntimeError naming the keys and what
  was found."""
  gpus = list_gpus()
  if len(gpus) < wanted:
    why = (f'learner.inference_devices={learner_config.inference_devices} + '
           f'learner.training_devices={learner_config.training_devices}'
           if learner_config.inference_devices else 'both device counts 0: one does both')
    raise RuntimeError(
        f"learner.training_strategy='gpu' needs {wanted} GPU{'s' * (wanted > 1)} ({why}); "
        f"this host's TensorFlow sees {len(gpus)}{': ' + ', '.join(gpus) if gpus else ''} "
        '(python -m seed_graph.launch.devices says why)')
  return gpus


class _TPUHost:
  """This TPU VM's cores, initialized once (initializing again would wipe them)."""

  def __init__(self):
    self._resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu='local')
    tf.config.experimental_connect_to_cluster(self._resolver)
    self._topology = tf.tpu.experimental.initialize_tpu_system(self._resolver)
    self.devices = [d.name for d in tf.config.list_logical_devices('TPU')]

  def strategy(self, devices: Sequence[str]) -> tf.distribute.TPUStrategy:
    """A TPUStrategy with one replica per core in `devices`, in that order."""
    coordinates = self._topology.device_coordinates[0]  # [core, 4] on this host.
    cores = [[coordinates[self.devices.index(d)]] for d in devices]
    assignment = tf.tpu.experimental.DeviceAssignment(self._topology,
                                                      np.array(cores, np.int32))
    return tf.distribute.TPUStrategy(self._resolver,
                                     experimental_device_assignment=assignment)


class LearnerDevices:
  """See the module docstring. `LearnerDevices()` is the unsplit learner."""

  def __init__(self, inference_devices: Sequence[str] = (),
               training_devices: Sequence[str] = (), tpu_host=None):
    self.inference_devices = list(inference_devices)
    self.training_devices = list(training_devices)
    self.split = bool(self.inference_devices)
    if not self.split:
      self._all = self._training = tf.distribute.get_strategy()  # The default strategy.
    elif tpu_host is not None:
      self._all = tpu_host.strategy(self.training_devices + self.inference_devices)
      self._training = tpu_host.strategy(self.training_devices)
    else:
      self._all = tf.distribute.MirroredStrategy(self.training_devices +
                                                 self.inference_devices)
      self._training = tf.distribute.MirroredStrategy(self.training_devices)

  @property
  def num_inference(self) -> int:
    """Policies served side by side (1 without a split)."""
    return max(1, len(self.inference_devices))

  @property
  def num_training(self) -> int:
    """Training replicas; a training batch must divide into them."""
    return max(1, len(self.training_devices))

  def variable_scope(self):
    """Variables (model, optimizer) created inside are mirrored to every device."""
    return self._all.scope() if self.split else contextlib.nullcontext()

  def inference_device(self, index: int):
    """Where inference device `index`'s policy is traced and called (an XLA program runs
    on the device it is called on, and must run where its variables live)."""
    if not self.split:
      return contextlib.nullcontext()
    return tf.device(self.inference_devices[index])

  def inference_scope(self, index: int):
    """Inside inference device `index`'s traced policy: its ops on that device, reading
    that device's copy of every variable."""
    if not self.split:
      return contextlib.nullcontext()
    stack = contextlib.ExitStack()
    stack.enter_context(self.inference_device(index))
    stack.enter_context(tf.distribute.ReplicaContext(
        self._all, replica_id_in_sync_group=len(self.training_devices) + index))
    return stack

  def copies(self, variable) -> List[np.ndarray]:
    """A variable's value on every device (one array without a split)."""
    return [np.asarray(c.numpy()) for c in self._all.experimental_local_results(variable)]

  def distribute(self, inputs: Tuple, batch_axes: Tuple[int, ...]):
    """A training batch's shards, one per training device: `inputs[i]` (a nest of
    arrays) split evenly along `batch_axes[i]`. Unsplit: `inputs` itself."""
    if not self.split:
      return inputs
    count = self.num_training
    # Split each array once (NumPy views); each replica converts its own share, on its
    # own device.
    pieces = [[np.split(x, count, axis) for x in tf.nest.flatten(part)]
              for part, axis in zip(inputs, batch_axes)]

    def shard(context):
      index = context.replica_id_in_sync_group
      return tuple(
          tf.nest.pack_sequence_as(part, [tf.convert_to_tensor(p[index]) for p in split])
          for part, split in zip(inputs, pieces))

    return self._training.experimental_distribute_values_from_function(shard)

  def gradient_step(self, loss_fn: Callable, variables, optimizer, clip_norm: float,
                    shards) -> Tuple[Dict, Dict, tf.Tensor, tf.Tensor]:
    """One optimizer step (inside a `tf.function`) on `distribute`d shards.

    `loss_fn(*shard) -> (loss, means, rows)` runs on each training device: `means` are
    scalars averaged across devices, `rows` are per-example `[b, ...]` tensors
    concatenated back in batch order. The gradients are averaged, clipped to global
    norm `clip_norm` and applied on every device if finite
    (`optimization.apply_if_finite`). Returns (means, rows, gradient norm, applied).
    """

    def replica_step(*shard):
      with tf.GradientTape() as tape:
        loss, means, rows = loss_fn(*shard)
      return tape.gradient(loss, variables), loss, means, rows

    gradients, loss, means, rows = self._training.run(replica_step, args=shards)
    mean = lambda x: self._training.reduce(tf.distribute.ReduceOp.MEAN, x, axis=None)
    gradients = [mean(g) for g in gradients]
    means = {k: mean(v) for k, v in means.items()}
    rows = {k: tf.concat(self._training.experimental_local_results(v), axis=0)
            for k, v in rows.items()}

    def apply(clipped):
      # The same averaged gradients on every replica: no second aggregation.
      self._all.run(lambda g: optimizer.apply_gradients(
          zip(g, variables), experimental_aggregate_gradients=False), args=(clipped,))

    gradient_norm, applied = optimization.apply_if_finite(
        gradients, mean(loss), clip_norm, apply)
    return means, rows, gradient_norm, applied


def validate_config(config: ml_collections.ConfigDict):
  """Raises ValueError naming the first bad device key of a program's config."""
  learner = config.learner
  inference, training = learner.inference_devices, learner.training_devices
  if inference < 0 or training < 0 or bool(inference) != bool(training):
    raise ValueError(f'learner.inference_devices, learner.training_devices: both 0 (one '
                     f'device for both) or both positive, got {inference} and {training}')
  if learner.training_strategy not in STRATEGIES:
    raise ValueError(f'learner.training_strategy: expected one of {STRATEGIES}, got '
                     f'{learner.training_strategy!r}')
  if inference + training > MAX_DEVICES:
    raise ValueError(f'learner.inference_devices + learner.training_devices: '
                     f'{inference + training} is more than {MAX_DEVICES}')
  if training and learner.batch_size % training:
    raise ValueError(f'learner.batch_size: {learner.batch_size} does not split evenly '
                     f'over learner.training_devices={training}')
  if inference and learner.training_strategy == 'tpu' and not config.inference.jit_compile:
    raise ValueError('inference.jit_compile: TPU cores run XLA programs only; set it to '
                     'True with learner.training_strategy=tpu')


def make_learner_devices(learner_config: ml_collections.ConfigDict) -> LearnerDevices:
  """The devices `learner.inference_devices` / `training_devices` ask for, created in
  this process (before TensorFlow initializes, for a CPU split). The GPUs are those
  `list_gpus` lists (tests/unit/device_split_run.py stands logical CPU devices in)."""
  inference = learner_config.inference_devices
  training = learner_config.training_devices
  gpu = learner_config.training_strategy == 'gpu'
  if not inference:
    if gpu:  # TensorFlow places the work on the first GPU by itself.
      _gpus_for(learner_config, 1)
    return LearnerDevices()
  tpu_host = None
  if gpu:
    devices = _gpus_for(learner_config, inference + training)
  elif learner_config.training_strategy == 'tpu':
    tpu_host = _TPUHost()
    devices = tpu_host.devices
    if len(devices) < inference + training:
      raise RuntimeError(f'the learner asks for {inference + training} TPU cores; this '
                         f'host has {len(devices)}: {devices}')
  else:
    devices = _split_cpu(inference + training)
  return LearnerDevices(devices[training:training + inference], devices[:training],
                        tpu_host)
