"""V-trace's config keys (its `learner` section, beside the `network` and device keys
every algorithm has) and their joint checks.

Defaults are SEED RL's V-trace settings for Atari where it has one (IMPALA's loss
weights, Adam at 0.00048 decayed linearly, gradient clipping at 40, rewards clipped to
[-1, 1]); presets in `seed_graph/configs/` set what differs.
"""

import numpy as np
import ml_collections

from seed_graph.algos import base
from seed_graph.config.schema import ConfigError
from seed_graph.config.schema import Key
from seed_graph.config.schema import in_range
from seed_graph.config.schema import non_negative
from seed_graph.config.schema import one_of
from seed_graph.config.schema import positive

REWARD_CLIPPING_MODES = ('none', 'abs_one', 'soft_asymmetric')

LEARNER_KEYS = {
    'batch_size': Key(32, 'Unrolls per training step.', positive),
    'unroll_length': Key(100, 'Agent steps per unroll (an unroll holds one more: the '
                         "next one's first).", positive, fixed=True),
    'queue_capacity': Key(64, 'Unrolls waiting for training; a full queue blocks '
                          'inference (back-pressure).', positive),
    'queue_max_bytes': Key(2 << 30, 'Refuse configs whose full queue would take more '
                           'bytes than this.', positive),
    'learning_rate': Key(0.00048, 'Adam step size.', positive),
    'learning_rate_decay': Key(True, 'Decay the step size linearly to 0 at '
                               'total_environment_frames.'),
    'adam_beta1': Key(0.9, "Adam's first-moment decay.", in_range(0.0, 1.0)),
    'adam_beta2': Key(0.999, "Adam's second-moment decay.", in_range(0.0, 1.0)),
    'adam_epsilon': Key(1e-7, "Adam's denominator epsilon (losses are means, so "
                        'gradients are small: 1e-3 would shrink steps ~10x).', positive),
    'discount': Key(0.99, 'Per agent step.', in_range(0.0, 1.0)),
    'baseline_cost': Key(0.5, 'Weight of 0.5 * squared V-trace value error.',
                         non_negative),
    'entropy_cost': Key(0.01, 'Weight of the entropy bonus.', non_negative),
    'lambda_': Key(1.0, 'V-trace lambda.', in_range(0.0, 1.0)),
    'reward_clipping': Key('abs_one', "'none', 'abs_one' (to [-1, 1]) or "
                           "'soft_asymmetric' (SEED's tanh form).",
                           one_of(*REWARD_CLIPPING_MODES)),
    'reward_scale': Key(1.0, 'Multiplies rewards after clipping; values and advantages '
                        'are learned in these units.', positive),
    'gradient_clip_norm': Key(40.0, 'Global-norm gradient clipping (0 disables).',
                              non_negative),
    'clip_rho_threshold': Key(1.0, 'V-trace rho-bar.', non_negative),
    'clip_pg_rho_threshold': Key(1.0, 'rho-bar of the policy-gradient advantages.',
                                 non_negative),
    'collect_while_training': Key(True, "Actors act while the learner trains (SEED's "
                                  'asynchrony); False holds inference from the moment a '
                                  "batch is complete until it is trained (PPO's "
                                  'collect-then-train: the policy lag is then only the '
                                  "batch's own epochs and minibatches)."),
    'epochs': Key(1, 'Passes over each training batch (APPO: reuse data, off-policy '
                  'by V-trace and policy_clip).', positive),
    'minibatches': Key(1, 'Gradient steps per pass, each on this share of the batch\'s '
                       'unrolls; must divide batch_size.', positive),
    'policy_clip': Key(0.0, "PPO's clipped surrogate on V-trace advantages, epsilon "
                       "(0: IMPALA's policy gradient).", in_range(0.0, 1.0)),
    'policy_clip_center': Key('behaviour', "The policy PPO's clip keeps the trained one "
                              "near: 'behaviour', the one that acted (APPO), or "
                              "'batch_start', the one the batch's first gradient step "
                              'found (decoupled PPO: then the ratio of that policy to the '
                              'acting one, at most clip_pg_rho_threshold, weights the '
                              'surrogate). Data waits in the queue for learner steps '
                              '(the policy lag) that the first counts against the clip.',
                              one_of('behaviour', 'batch_start')),
    'normalize_advantages': Key(False, 'Standardize the policy-gradient advantages '
                                'over each gradient step\'s batch.'),
}

SCHEMA = {'learner': LEARNER_KEYS}


def check(config: ml_collections.ConfigDict, spec: base.EnvironmentSpec) -> None:
  """What single keys cannot say: the queue against the batch and the memory bound."""
  learner = config.learner
  if learner.batch_size % learner.minibatches:
    raise ConfigError(f'learner.minibatches: {learner.minibatches} does not divide '
                      f'learner.batch_size={learner.batch_size}')
  if learner.policy_clip_center != 'behaviour' and not learner.policy_clip:
    raise ConfigError(f'learner.policy_clip_center={learner.policy_clip_center!r} '
                      'centres a clip there is not: set learner.policy_clip > 0')
  minibatch = learner.batch_size // learner.minibatches
  if learner.training_devices and minibatch % learner.training_devices:
    raise ConfigError(f'learner.minibatches: minibatches of {minibatch} unrolls do not '
                      f'split evenly over learner.training_devices='
                      f'{learner.training_devices}')
  if learner.queue_capacity < learner.batch_size:
    raise ConfigError(f'learner.queue_capacity: {learner.queue_capacity} unrolls cannot '
                      f'hold one training batch of {learner.batch_size}')
  step_bytes = (int(np.prod(spec.observation_shape)) * spec.observation_dtype.itemsize
                + 4 * (spec.num_actions + 4))
  queue_bytes = learner.queue_capacity * (learner.unroll_length + 1) * step_bytes
  if queue_bytes > learner.queue_max_bytes:
    raise ConfigError(
        f'learner.unroll_length: {learner.queue_capacity} queued unrolls of '
        f'{learner.unroll_length + 1} steps take {queue_bytes / 2**30:.2f} GiB, more than '
        f'learner.queue_max_bytes ({learner.queue_max_bytes / 2**30:.2f} GiB); shorten the '
        'unroll or the queue')
