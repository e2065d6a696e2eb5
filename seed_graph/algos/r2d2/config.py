"""R2D2's config keys (`network`, `exploration`, `replay`, `learner`: beside the torso
and device keys every algorithm has) and their joint checks.

Defaults are SEED RL's R2D2 Atari settings where it has one (n-step 5, value
rescaling, Adam at 1e-4 with epsilon 1e-3, gradient clipping at 80, prioritized replay
with exponent 0.9, mix 0.9 and importance sampling 0.6, Ape-X epsilons); presets in
`seed_graph/configs/` set what differs.
"""
import ml_collections

from seed_graph.algos import base
from seed_graph.config.schema import ConfigError
from seed_graph.config.schema import Key
from seed_graph.config.schema import in_range
from seed_graph.config.schema import non_negative
from seed_graph.config.schema import one_of
from seed_graph.config.schema import positive

NETWORK_KEYS = {  # Beside the torso's, which every algorithm has.
    'head_hidden_size': Key(512, 'Hidden layer of each dueling stream.', positive,
                            fixed=True),
}

EXPLORATION_KEYS = {
    'base': Key(0.4, 'Ape-X: training environment i of N explores with epsilon '
                'base ** (1 + alpha i / (N - 1)).', in_range(1e-9, 1.0)),
    'alpha': Key(7.0, 'Spread of those epsilons.', non_negative),
}

REPLAY_KEYS = {
    'capacity': Key(20_000, 'Sequences kept (the oldest evicted when full).', positive,
                    fixed=True),
    'min_size_to_sample': Key(500, 'Training waits until the table holds this many.',
                              positive, fixed=True),
    'samples_per_insert': Key(1.0, 'Rate limiter: sequences sampled per sequence '
                              'inserted.', positive, fixed=True),
    'error_buffer': Key(500.0, "Rate limiter's slack, in samples, before it blocks.",
                        positive, fixed=True),
    'priority_exponent': Key(0.9, 'Sampling probability ~ priority ** this.',
                             in_range(0.0, 1.0), fixed=True),
    'chunk_length': Key(40, 'Steps per compressed chunk (sequences share chunks).',
                        positive, fixed=True),
}

LEARNER_KEYS = {
    'batch_size': Key(64, 'Sequences per training step.', positive),
    'burn_in': Key(40, 'Steps that only warm up the LSTM (no gradient).', non_negative,
                   fixed=True),
    'unroll_length': Key(80, 'Trained steps; a sequence holds burn_in + this + 1.',
                         positive, fixed=True),
    'n_step': Key(5, 'n of the n-step double-Q targets.', positive),
    'discount': Key(0.997, 'Per agent step.', in_range(0.0, 1.0)),
    'target_update_period': Key(2500, 'Learner steps between target-network copies.',
                                positive),
    'learning_rate': Key(1e-4, 'Adam step size.', positive),
    'adam_epsilon': Key(1e-3, "Adam's denominator epsilon.", positive),
    'gradient_clip_norm': Key(80.0, 'Global-norm gradient clipping (0 disables).',
                              non_negative),
    'importance_sampling_exponent': Key(0.6, "Prioritized replay's beta.",
                                        in_range(0.0, 1.0)),
    'priority_eta': Key(0.9, 'priority = eta * max|td| + (1 - eta) * mean|td|.',
                        in_range(0.0, 1.0)),
    'value_rescale_eps': Key(1e-3, 'eps of h(x) = sign(x)(sqrt(|x| + 1) - 1) + eps x.',
                             positive),
    'loss_over_steps': Key('sum', "How a sequence's squared TD errors combine: 'sum' (R2D2, "
                           "SEED RL) or 'mean' over its valid steps (this project before "
                           'the sum: gradients T times smaller).', one_of('sum', 'mean')),
}

SCHEMA = {'network': NETWORK_KEYS, 'exploration': EXPLORATION_KEYS,
          'replay': REPLAY_KEYS, 'learner': LEARNER_KEYS}


def check(config: ml_collections.ConfigDict, spec: base.EnvironmentSpec) -> None:
  """What single keys cannot say: the sequence layout against the replay."""
  learner, replay = config.learner, config.replay
  if learner.burn_in > learner.unroll_length:
    raise ConfigError(f'learner.burn_in: {learner.burn_in} burn-in steps are longer than '
                      f'the trained sequence they warm up (learner.unroll_length='
                      f'{learner.unroll_length})')
  if learner.n_step > learner.unroll_length:
    raise ConfigError(f'learner.n_step: {learner.n_step} steps do not fit in the '
                      f'{learner.unroll_length} trained steps of a sequence '
                      '(learner.unroll_length)')
  if replay.capacity < learner.batch_size:
    raise ConfigError(f'replay.capacity: {replay.capacity} sequences cannot hold one '
                      f'training batch of {learner.batch_size} (learner.batch_size)')
  if replay.min_size_to_sample > replay.capacity:
    raise ConfigError(f'replay.min_size_to_sample: {replay.min_size_to_sample} is more '
                      f'than the table can hold (replay.capacity={replay.capacity})')
  if replay.error_buffer < 2 * max(1.0, replay.samples_per_insert):
    raise ConfigError(f'replay.error_buffer: {replay.error_buffer} is below 2 * max(1, '
                      f'replay.samples_per_insert) = '
                      f'{2 * max(1.0, replay.samples_per_insert)}; the rate limiter '
                      'could block both inserts and samples')
  stored_length = learner.burn_in + learner.unroll_length + config.env.frame_stack
  if replay.chunk_length > stored_length:
    raise ConfigError(f'replay.chunk_length: {replay.chunk_length} is longer than a '
                      f'stored sequence ({stored_length} steps)')
  if config.env.frame_stack > 1 and len(spec.observation_shape) != 2:
    raise ConfigError(f'env.frame_stack: R2D2 stacks frames on the learner, which needs '
                      f'single-channel frames [H, W], got observations of shape '
                      f'{spec.observation_shape}')
