"""A learner split over logical CPU devices, driven through its public methods; run by
`tests/unit/test_device_split.py` in a fresh process, because the split must be made before
TensorFlow starts. Prints one JSON line of measurements:

  python -m tests.unit.device_split_run ALGORITHM INFERENCE TRAINING LOGDIR [STEPS] [gpu]

With `gpu`, the learner runs with `learner.training_strategy='gpu'`, logical CPU devices
standing in for this host's GPUs (one more than it asks for: it must take the first ones).

For every training step: the largest difference between the logits (V-trace) or Q values
(R2D2) each inference device computes step by step and those of the training unroll on
the same batch, before the step; afterwards, whether every variable is equal on every
device and how far the step moved them. R2D2 also reports its priority updates and
whether the target network equals the online one after the target-update steps.
"""

import json
import sys

import numpy as np
import reverb
import tensorflow as tf

from seed_graph import envs
from seed_graph.algos import learner_devices
from seed_graph.algos.r2d2 import learning as r2d2_learner
from seed_graph.inference import messages
from seed_graph.nodes.learner import shell as learner_lib
from seed_graph.programs import registry
from tests import helpers


def _config(algorithm, inference, training, logdir, strategy):
  overrides = {'learner.inference_devices': inference,
               'learner.training_devices': training, 'learner.training_strategy': strategy,
               'learner.batch_size': 2 * training, 'learner.queue_capacity': 64}
  return _SMALL_CONFIGS[algorithm](logdir, overrides)


def _small_vtrace_config(logdir, overrides):
  return helpers.small_cartpole_config(logdir, **overrides)


def _small_r2d2_config(logdir, overrides):
  from seed_graph.configs import cartpole_r2d2  # pylint: disable=g-import-not-at-top
  config = cartpole_r2d2.get_config()
  config.logdir = logdir
  config.actors.env_batch_size = 4
  config.replay.min_size_to_sample = 8
  config.learner.target_update_period = 2
  for dotted, value in overrides.items():
    if dotted != 'learner.queue_capacity':
      config.learner[dotted.split('.')[1]] = value
  return config


def _drive(learner, num_steps, rng):
  """`num_steps` inference steps for 8 training environments, the batches spread over
  the inference devices in turn."""
  env_ids = np.arange(8, dtype=np.int32)
  for step in range(num_steps):
    dones = rng.random(8) < 0.05
    learner.infer_batch([messages.InferenceRequest(
        env_ids, np.full(8, 1, np.int64), rng.random(8).astype(np.float32),
        dones, np.zeros(8, bool), rng.normal(size=(8, 4)).astype(np.float32),
        False, dones)], device=step % learner.devices.num_inference)


def _stepped_outputs(learner, device, steps, state, exploration):
  """The policy's extras (logits or Q values) for `[T, B]` steps, one step at a time."""
  outputs = []
  for t in range(steps['prev_actions'].shape[0]):
    _, extras, state = learner.run_policy(
        device, steps['prev_actions'][t], steps['rewards'][t], steps['dones'][t],
        steps['observations'][t], state, exploration)
    outputs.append(extras)
  return np.stack(outputs)


def _vtrace_training_inputs(learner, batch):
  """(time-major steps, initial state, the training unroll's logits)."""
  steps, state = learner.algorithm.stack(batch)
  logits = learner.algorithm.unroll(steps, state).policy_logits.numpy()
  return steps, state, logits, np.zeros(steps['rewards'].shape[1], bool)


def _r2d2_training_inputs(learner, sample):
  data = sample.data  # Batch-major; the state is the one before the first step.
  steps = {'prev_actions': data['prev_action'].T, 'rewards': data['reward'].T,
           'dones': data['done'].T, 'observations': data['observation'].swapaxes(0, 1)}
  network = learner.algorithm.network
  state = network.initial_state(len(data['reward']))
  state = tf.nest.pack_sequence_as(state, tf.split(
      data['core_state'], [s.shape[-1] for s in tf.nest.flatten(state)], axis=-1))
  q_values, _ = network.unroll(steps['prev_actions'], steps['rewards'], steps['dones'],
                               steps['observations'], state)
  state = tf.nest.map_structure(lambda s: s.numpy(), state)
  return steps, state, q_values.numpy(), np.zeros(len(data['reward']), np.float32)


def _variables(learner):
  algorithm = learner.algorithm
  if isinstance(algorithm, r2d2_learner.R2D2):
    return list(algorithm.network.variables), list(algorithm.checkpoint_items()[
        'target_network'].variables)
  return list(algorithm.agent.variables), []


def _rows_come_back_in_batch_order(devices) -> bool:
  """`gradient_step`'s per-example outputs (R2D2's priorities) are concatenated in the
  order of the batch they were split from."""
  with devices.variable_scope():
    weight = tf.Variable(1.0)
    optimizer = tf.keras.optimizers.SGD(0.1)
  batch = np.arange(4 * devices.num_training * 3, dtype=np.float32).reshape(-1, 3)
  loss_fn = lambda x: (tf.reduce_mean(weight * x), {}, {'x': x * weight})
  step = tf.function(lambda shards: devices.gradient_step(loss_fn, [weight], optimizer,
                                                           0.0, shards))
  _, rows, _, applied = step(devices.distribute((batch,), (0,)))
  return bool(applied) and np.array_equal(rows['x'].numpy(), batch)


_SMALL_CONFIGS = {'vtrace': _small_vtrace_config, 'r2d2': _small_r2d2_config}
_TRAINING_INPUTS = {'vtrace': _vtrace_training_inputs, 'r2d2': _r2d2_training_inputs}


def main(algorithm, inference, training, logdir, num_steps=3, strategy='mirrored'):
  config = _config(algorithm, inference, training, logdir, strategy)
  if strategy == 'gpu':  # No GPU here: logical CPU devices stand in, one to spare.
    learner_devices.list_gpus = lambda: learner_devices._split_cpu(inference + training + 1)
  # Before the replay server below, which starts TensorFlow in this process.
  learner_devices.make_learner_devices(config.learner)
  rng = np.random.default_rng(0)
  server, replay = None, []
  built = registry.algorithm_builder(config)
  if built.uses_replay:
    server = reverb.Server(built.replay_tables(config, envs.read_spec(config.env)),
                           port=None)
    replay = [reverb.Client(f'localhost:{server.port}')]
  learner = learner_lib.Learner(config, built.algorithm, *replay)
  training_inputs = _TRAINING_INPUTS[algorithm]
  report = {'inference_devices': learner.devices.inference_devices,
            'training_devices': learner.devices.training_devices, 'steps': [],
            'rows_in_batch_order': _rows_come_back_in_batch_order(learner.devices)}
  online, target = _variables(learner)
  for _ in range(num_steps):
    batch = None
    while batch is None:
      _drive(learner, 10, rng)
      batch = learner.algorithm.next_batch()
    steps, state, trained, exploration = training_inputs(learner, batch)
    differences = [float(np.max(np.abs(
        _stepped_outputs(learner, device, steps, state, exploration) - trained)))
                   for device in range(learner.devices.num_inference)]
    before = [v.numpy().copy() for v in online]
    figures = learner.algorithm.train(batch)
    copies = [learner.devices.copies(v) for v in online + target]
    report['steps'].append({
        'outputs_max_difference': differences,
        'copies_per_variable': sorted({len(c) for c in copies}),
        'copies_equal': all(all(np.array_equal(c[0], x) for x in c) for c in copies),
        'largest_change': max(float(np.max(np.abs(v.numpy() - b)))
                              for v, b in zip(online, before)),
        'update_applied': bool(figures['update_applied']),
        'target_equals_online': bool(target) and all(
            np.array_equal(t.numpy(), o.numpy()) for t, o in zip(target, online)),
    })
  report['stats'] = {k: v for k, v in learner.algorithm.stats().items()
                     if k in ('priority_updates',)}
  learner.algorithm.close()
  if server is not None:
    server.stop()
  print(json.dumps(report), flush=True)


if __name__ == '__main__':
  main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4],
       *map(int, sys.argv[5:6]), *sys.argv[6:7])
