"""The IMPALA actor-critic loss on V-trace targets, pure TensorFlow.

An unroll holds `T + 1` steps. Step t carries what the agent saw (observation, previous
action, the reward and `done` of the transition that led to it) and what it did (action,
behaviour logits). The transition out of step t therefore has reward `rewards[t + 1]`
and ends the episode when `dones[t + 1]`; the value of the last step bootstraps.

A time limit is not a terminal state: when `truncations[t + 1]` is also set, the
transition is given V(x_t) as its target (no value or policy update from it), and the
steps before it bootstrap from V(x_t) instead of learning that the episode ends there.

For training on a batch more than once (`learner.epochs`), the policy term can be PPO's
clipped surrogate on V-trace's advantages, as in Sample Factory's APPO (`policy_clip`):
with r_t = pi(a_t|x_t) / mu(a_t|x_t) and A_t = r_t + gamma v_{t+1} - V(x_t), the loss is
-min(r_t A_t, clip(r_t, 1 - eps, 1 + eps) A_t); the importance weight is then in the
surrogate, not in A_t. `normalize_advantages` standardizes A_t over the batch first.
Given `proximal_logits` (a policy between mu and pi, e.g. pi as the batch's first step
found it: decoupled PPO, Hilton et al. 2021), the clip keeps pi near it instead:
r_t = pi / pi_prox, and the surrogate is weighted by min(rho-bar_pg, pi_prox / mu).
"""

import collections
from typing import Optional

import tensorflow as tf

from seed_graph.algos.vtrace import returns as vtrace

LossTerms = collections.namedtuple(
    'LossTerms', ['total_loss', 'policy_loss', 'baseline_loss', 'entropy', 'entropy_loss',
                  'clip_fraction', 'behaviour_kl'])


def clip_rewards(rewards: tf.Tensor, mode: str):
  """'none', 'abs_one' (clip to [-1, 1]) or 'soft_asymmetric' (SEED RL's Atari option)."""
  if mode == 'none':
    return rewards
  if mode == 'abs_one':
    return tf.clip_by_value(rewards, -1.0, 1.0)
  if mode == 'soft_asymmetric':
    squeezed = tf.tanh(rewards / 5.0)
    return tf.where(rewards < 0, 0.3 * squeezed, squeezed) * 5.0
  raise ValueError(f'unknown reward clipping mode {mode!r}')


def impala_loss(learner_outputs, behaviour_logits: tf.Tensor, actions: tf.Tensor,
                rewards: tf.Tensor, dones: tf.Tensor, *, discount: float,
                truncations: Optional[tf.Tensor] = None, baseline_cost: float,
                entropy_cost: float, reward_clipping: str = 'none',
                reward_scale: float = 1.0, lambda_: float = 1.0,
                clip_rho_threshold: float = 1.0, clip_pg_rho_threshold: float = 1.0,
                policy_clip=0.0, normalize_advantages=False,
                proximal_logits: Optional[tf.Tensor] = None):
  """Loss of one batch of unrolls.

  Args:
    learner_outputs: AgentOutput from the learner's unroll: `policy_logits [T+1, B, A]`,
      `baseline [T+1, B]`.
    behaviour_logits: `[T+1, B, A]` logits the acting policy used.
    actions: `[T+1, B]` int actions taken.
    rewards: `[T+1, B]` reward of the transition into each step.
    dones: `[T+1, B]` bool, the transition into each step ended an episode.
    truncations: `[T+1, B]` bool or None, that end was a time limit.
    discount: gamma.
    baseline_cost, entropy_cost: weights of the value and entropy terms.
    reward_clipping: see `clip_rewards`.
    reward_scale: multiplies the (clipped) rewards, so values are learned in these units.
    lambda_, clip_rho_threshold, clip_pg_rho_threshold: V-trace parameters.
    policy_clip: 0 for IMPALA's policy gradient; eps > 0 for the clipped surrogate.
    normalize_advantages: standardize the policy-gradient advantages over the batch.
    proximal_logits: `[T+1, B, A]` or None, the policy the clip is centred on (None: mu).

  Returns:
    LossTerms (scalars; means over time and batch): with `clip_fraction` the share of
    steps whose surrogate ratio is outside [1 - eps, 1 + eps] (0 without a clip), and
    `behaviour_kl` the mean KL(mu || pi), how far the policy has moved since it acted.
  """
  target_logits = learner_outputs.policy_logits[:-1]
  values, bootstrap_value = learner_outputs.baseline[:-1], learner_outputs.baseline[-1]
  taken_actions = actions[:-1]
  transition_rewards, discounts = _transitions(
      rewards, dones, truncations, values, discount=discount,
      reward_clipping=reward_clipping, reward_scale=reward_scale)
  target_log_probs = _log_probs(target_logits, taken_actions)
  behaviour_log_probs = _log_probs(behaviour_logits[:-1], taken_actions)
  returns = vtrace.from_importance_weights(
      log_rhos=target_log_probs - behaviour_log_probs, discounts=discounts,
      rewards=transition_rewards, values=values, bootstrap_value=bootstrap_value,
      clip_rho_threshold=clip_rho_threshold, clip_pg_rho_threshold=clip_pg_rho_threshold,
      lambda_=lambda_)

  advantages = returns.pg_advantages if not policy_clip else _advantages(
      returns.vs, transition_rewards, discounts, values, bootstrap_value)
  advantages = _standardized(advantages) if normalize_advantages else advantages
  proximal_log_probs = None if proximal_logits is None else tf.stop_gradient(
      _log_probs(proximal_logits[:-1], taken_actions))
  policy_loss, clip_fraction = _policy_loss(
      target_log_probs, behaviour_log_probs, advantages, policy_clip,
      proximal_log_probs, clip_pg_rho_threshold)
  baseline_loss = 0.5 * tf.reduce_mean(tf.square(returns.vs - values))
  entropy, behaviour_kl = _entropy_and_kl(target_logits, behaviour_logits[:-1])
  entropy_loss = -entropy
  total_loss = policy_loss + baseline_cost * baseline_loss + entropy_cost * entropy_loss
  return LossTerms(total_loss, policy_loss, baseline_loss, entropy, entropy_loss,
                   clip_fraction, behaviour_kl)


def _transitions(rewards: tf.Tensor, dones: tf.Tensor, truncations: tf.Tensor,
                 values: tf.Tensor, *, discount: float, reward_clipping: str,
                 reward_scale: float):
  """The reward and discount of each transition t -> t+1, `[T, B]` each."""
  transition_rewards = reward_scale * clip_rewards(tf.cast(rewards[1:], tf.float32),
                                                  reward_clipping)
  discounts = tf.cast(~dones[1:], tf.float32) * discount
  if truncations is not None:
    # delta_t = r_t + 0 * V(x_t+1) - V(x_t) = 0, so v_t = V(x_t): no signal, and no end.
    truncated = dones[1:] & truncations[1:]
    transition_rewards = tf.where(truncated, tf.stop_gradient(values), transition_rewards)
  return transition_rewards, discounts


def _entropy_and_kl(target_logits, behaviour_logits: tf.Tensor):
  """Mean entropy of pi (differentiable) and mean KL(mu || pi) (a statistic)."""
  log_policy = tf.nn.log_softmax(target_logits)
  entropy = tf.reduce_mean(-tf.reduce_sum(tf.exp(log_policy) * log_policy, axis=-1))
  log_behaviour = tf.nn.log_softmax(behaviour_logits)
  behaviour_kl = tf.reduce_mean(tf.reduce_sum(
      tf.exp(log_behaviour) * (log_behaviour - tf.stop_gradient(log_policy)), axis=-1))
  return entropy, behaviour_kl


def _log_probs(logits: tf.Tensor, actions: tf.Tensor):
  return -tf.nn.sparse_softmax_cross_entropy_with_logits(labels=actions, logits=logits)


def _policy_loss(target_log_probs, behaviour_log_probs, advantages, policy_clip: float,
                 proximal_log_probs: Optional[tf.Tensor] = None, clip_pg_rho: float = 1.0):
  """(loss, share of ratios outside the clip). `policy_clip` 0: IMPALA's policy gradient
  (the advantages carry V-trace's importance weight); otherwise PPO's clipped surrogate
  with ratios r_t = pi / mu, or with `proximal_log_probs` r_t = pi / pi_prox, each
  step's term weighted by min(clip_pg_rho, pi_prox / mu)."""
  if not policy_clip:
    return -tf.reduce_mean(target_log_probs * advantages), tf.constant(0.0)
  weights, centre_log_probs = None, behaviour_log_probs
  if proximal_log_probs is not None:
    centre_log_probs = proximal_log_probs
    weights = tf.minimum(clip_pg_rho, tf.exp(proximal_log_probs - behaviour_log_probs))
  ratios = tf.exp(target_log_probs - centre_log_probs)
  clipped = tf.clip_by_value(ratios, 1.0 - policy_clip, 1.0 + policy_clip)
  surrogate = tf.minimum(ratios * advantages, clipped * advantages)
  loss = -tf.reduce_mean(surrogate if weights is None else weights * surrogate)
  outside = tf.abs(tf.stop_gradient(ratios) - 1.0) > policy_clip
  return loss, tf.reduce_mean(tf.cast(outside, tf.float32))


def _standardized(advantages: tf.Tensor) -> tf.Tensor:
  mean, variance = tf.nn.moments(advantages, axes=[0, 1])
  return (advantages - mean) / (tf.sqrt(variance) + 1e-8)


def _advantages(vs, rewards: tf.Tensor, discounts: tf.Tensor, values: tf.Tensor,
                bootstrap_value: tf.Tensor):
  """r_t + gamma_t v_{t+1} - V(x_t), without V-trace's importance weight (stopped)."""
  vs_next = tf.concat([vs[1:], bootstrap_value[tf.newaxis]], axis=0)
  return tf.stop_gradient(rewards + discounts * vs_next - values)
