"""The clipped policy-ratio loss, its loss-type reductions and the KL term, against hand computations."""

from __future__ import annotations

import math

import pytest
import torch

from rewardkit.train.loss import clipped_policy_loss, k3_kl

# Sequence 0 (A = +1) has ratios 1.5, 0.5, 1.0; sequence 1 (A = -1) has ratios 0.5, 1.5 and a padded token.
RATIOS = torch.tensor([[1.5, 0.5, 1.0], [0.5, 1.5, 1.0]])
MASK = torch.tensor([[1, 1, 1], [1, 1, 0]])
ADV = torch.tensor([1.0, -1.0])
OLD = torch.full((2, 3), -1.0)
# per token -min(r A, clip(r, 0.8, 1.2) A): seq 0: -1.2 (clipped), -0.5, -1.0; seq 1: 0.8 (clipped), 1.5
SEQ0, SEQ1 = [-1.2, -0.5, -1.0], [0.8, 1.5]


def _loss(loss_type="grpo", **kwargs):
    logp = (OLD + torch.log(RATIOS)).requires_grad_(True)
    return logp, clipped_policy_loss(
        logp, OLD, ADV, MASK, epsilon_low=0.2, loss_type=loss_type, max_completion_length=4, **kwargs
    )


def test_grpo_averages_each_sequence_then_the_batch():
    _, out = _loss("grpo")
    assert out.loss.item() == pytest.approx((sum(SEQ0) / 3 + sum(SEQ1) / 2) / 2)


def test_bnpo_averages_over_all_tokens():
    _, out = _loss("bnpo")
    assert out.loss.item() == pytest.approx((sum(SEQ0) + sum(SEQ1)) / 5)


def test_dr_grpo_divides_by_batch_times_max_length():
    _, out = _loss("dr_grpo")
    assert out.loss.item() == pytest.approx((sum(SEQ0) + sum(SEQ1)) / (2 * 4))


def test_clip_fraction_counts_the_tokens_the_clip_bounded():
    _, out = _loss()
    assert out.clip_fraction == pytest.approx(2 / 5)
    assert out.clip_high_fraction == pytest.approx(1 / 5)
    assert out.clip_low_fraction == pytest.approx(1 / 5)


def test_clipped_tokens_get_no_gradient_and_the_others_do():
    logp, out = _loss("bnpo")
    out.loss.backward()
    grad = logp.grad
    assert grad[0, 0].item() == 0.0 and grad[1, 0].item() == 0.0  # clipped
    assert grad[1, 2].item() == 0.0  # padding
    # d/dlogp of -r A / 5 is -r A / 5
    assert grad[0, 1].item() == pytest.approx(-0.5 / 5)
    assert grad[1, 1].item() == pytest.approx(1.5 / 5)


def test_asymmetric_clip_uses_epsilon_high_for_positive_advantages():
    logp = OLD + torch.log(RATIOS)
    out = clipped_policy_loss(logp, OLD, ADV, MASK, epsilon_low=0.2, epsilon_high=0.6, loss_type="bnpo")
    # with 1 + 0.6 the ratio 1.5 at A = +1 is no longer clipped: -1.5 instead of -1.2
    assert out.loss.item() == pytest.approx((-1.5 - 0.5 - 1.0 + 0.8 + 1.5) / 5)
    assert out.clip_high_fraction == 0.0


def test_k3_kl_matches_the_formula_and_is_zero_at_equality():
    logp, ref = torch.tensor([math.log(0.5)]), torch.tensor([math.log(0.25)])
    delta = math.log(0.25) - math.log(0.5)
    assert k3_kl(logp, ref).item() == pytest.approx(math.exp(delta) - delta - 1)
    assert k3_kl(ref, ref).item() == 0.0


def test_beta_adds_the_weighted_kl_to_the_loss():
    ref = OLD - 0.3
    _, plain = _loss("bnpo", ref_logp=ref)
    _, with_kl = _loss("bnpo", ref_logp=ref, beta=0.1)
    logp = OLD + torch.log(RATIOS)
    kl = k3_kl(logp, ref)
    expected_kl = (kl * MASK).sum().item() / 5
    assert with_kl.loss.item() - plain.loss.item() == pytest.approx(0.1 * expected_kl, rel=1e-5)
    assert with_kl.kl == pytest.approx(expected_kl, rel=1e-5)
    with pytest.raises(ValueError, match="ref_logp"):
        clipped_policy_loss(logp, OLD, ADV, MASK, beta=0.1)
