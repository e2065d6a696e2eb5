"""A third algorithm, added without touching seed_graph: an n-step advantage actor-critic
(A2C's loss, trained on the learner's batches as they come).

Everything seed_graph asks of an algorithm is `BUILDER`; a config names this module:

    config.algorithm = 'examples.my_algorithm'

    python -m seed_graph.launch.local --config=examples/my_algorithm/cartpole.py \\
        --logdir=logs/my_algorithm
    python -m seed_graph.launch.eval --logdir=logs/my_algorithm --video=logs/my_algorithm/films

Its config keys are the `learner` section below, beside the keys every algorithm has (the
network's torso, the learner's devices) and every program has.
"""

import seed_graph as sg
from examples.my_algorithm.learning import NStepActorCritic

_positive = lambda v: None if v > 0 else 'must be > 0'
_fraction = lambda v: None if 0 <= v <= 1 else 'must be in [0, 1]'

LEARNER_KEYS = {
    'batch_size': sg.Key(32, 'Unrolls per training step.', _positive),
    'unroll_length': sg.Key(5, 'n: agent steps per unroll, each one\'s return bootstrapped '
                            'from the value n steps on (or fewer, at an unroll\'s end).',
                            _positive, fixed=True),
    'queue_capacity': sg.Key(64, 'Unrolls waiting for training; a full queue blocks '
                             'inference.', _positive),
    'learning_rate': sg.Key(2e-3, 'Adam step size.', _positive),
    'discount': sg.Key(0.99, 'Per agent step.', _fraction),
    'value_cost': sg.Key(0.5, 'Weight of 0.5 * squared advantage.', _positive),
    'entropy_cost': sg.Key(0.003, 'Weight of the entropy bonus.', _fraction),
    'reward_scale': sg.Key(0.01, 'Multiplies rewards: values are learned in these units.',
                           _positive),
    'gradient_clip_norm': sg.Key(1.0, 'Global-norm gradient clipping (0 disables).',
                                 lambda v: None if v >= 0 else 'must be >= 0'),
}


def check(config, spec: sg.EnvironmentSpec) -> None:
  """What single keys cannot say."""
  del spec
  if config.network.lstm_size:
    raise sg.ConfigError(f'network.lstm_size: {config.network.lstm_size}, but this '
                         'algorithm is feed-forward; set it to 0')
  if config.learner.queue_capacity < config.learner.batch_size:
    raise sg.ConfigError(f'learner.queue_capacity: {config.learner.queue_capacity} '
                         f'unrolls cannot hold a batch of {config.learner.batch_size}')


BUILDER = sg.AlgorithmBuilder(name='n_step_actor_critic', algorithm=NStepActorCritic,
                              schema={'learner': LEARNER_KEYS}, check=check)
