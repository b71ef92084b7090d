"""Group-normalised advantages against hand computations, for each TRL variant."""

from __future__ import annotations

import math

import pytest
import torch

from rewardkit.train.advantages import STD_EPS, group_advantages, normalise_scale, zero_variance_groups

# Two groups of four: [1, 0, 0, 0] (mean 0.25, unbiased std 0.5) and [2, 2, 2, 2] (no spread).
REWARDS = torch.tensor([1.0, 0.0, 0.0, 0.0, 2.0, 2.0, 2.0, 2.0])


def test_group_scaling_divides_by_the_group_std():
    adv = group_advantages(REWARDS, 4, "group")
    expected = [0.75 / (0.5 + STD_EPS)] + [-0.25 / (0.5 + STD_EPS)] * 3 + [0.0] * 4
    assert adv.tolist() == pytest.approx(expected, rel=1e-6)


def test_no_scaling_only_centres():  # Dr. GRPO's recommendation
    adv = group_advantages(REWARDS, 4, "none")
    assert adv.tolist() == pytest.approx([0.75, -0.25, -0.25, -0.25, 0, 0, 0, 0])


def test_batch_scaling_uses_one_std_for_the_whole_batch():
    # batch mean 1.125; squared deviations .015625 + 3 * 1.265625 + 4 * .765625 = 6.875; / 7 -> variance
    std = math.sqrt(6.875 / 7)
    adv = group_advantages(REWARDS, 4, "batch")
    expected = [x / (std + STD_EPS) for x in (0.75, -0.25, -0.25, -0.25, 0, 0, 0, 0)]
    assert adv.tolist() == pytest.approx(expected, rel=1e-6)


def test_boolean_spelling_maps_to_group_and_none():
    assert normalise_scale(True) == "group" and normalise_scale(False) == "none"
    assert group_advantages(REWARDS, 4, False).tolist() == group_advantages(REWARDS, 4, "none").tolist()
    with pytest.raises(ValueError, match="scale_rewards"):
        normalise_scale("per-token")


def test_advantages_sum_to_zero_within_each_group():
    rewards = torch.tensor([0.3, 0.9, 0.1, 0.5, 0.5, 0.2])
    for scale in ("group", "batch", "none"):
        adv = group_advantages(rewards, 3, scale).view(-1, 3)
        assert adv.sum(dim=1).abs().max().item() < 1e-6


def test_zero_variance_groups_are_flagged():
    flags = zero_variance_groups(torch.tensor([1.0, 1.0, 0.0, 1.0, 0.5, 0.5]), 2)
    assert flags.tolist() == [True, False, True]


def test_rejects_a_batch_that_is_not_whole_groups():
    with pytest.raises(ValueError, match="group_size=4"):
        group_advantages(torch.zeros(6), 4)


# --- unscorable completions (every reward returned None): out of the baseline, no advantage, as in TRL -----------
NAN = float("nan")
WITH_UNSCORED = torch.tensor([1.0, 0.0, NAN, 0.0, NAN, NAN, NAN, NAN, 2.0, NAN, 1.0, 0.0])


def trl_reference(rewards: torch.Tensor, group_size: int, scale: str) -> torch.Tensor:
    """TRL 1.16's sum_then_normalize advantages, from its own nanstd (grpo_trainer._generate_and_score)."""
    from trl.trainer.utils import nanstd as trl_nanstd

    grouped = rewards.view(-1, group_size)
    mean = torch.nanmean(grouped, dim=1).repeat_interleave(group_size)
    if scale == "batch":
        std = trl_nanstd(rewards).expand_as(rewards)
    else:
        std = trl_nanstd(grouped, dim=1).repeat_interleave(group_size)
    advantages = rewards - mean
    if scale != "none":
        advantages = advantages / (std + 1e-4)
    return torch.nan_to_num(advantages, nan=0.0)


@pytest.mark.parametrize("scale", ["group", "batch", "none"])
def test_unscored_completions_match_trls_handling(scale):
    pytest.importorskip("trl")
    ours = group_advantages(WITH_UNSCORED, 4, scale)
    assert ours.tolist() == pytest.approx(trl_reference(WITH_UNSCORED, 4, scale).tolist(), abs=1e-6)


@pytest.mark.parametrize("scale", ["group", "none"])
def test_an_unscored_completion_gets_no_advantage_and_leaves_the_baseline_alone(scale):
    adv = group_advantages(WITH_UNSCORED, 4, scale)
    assert adv[2].item() == 0.0 and adv[4:8].tolist() == [0.0] * 4 and adv[9].item() == 0.0
    # the scored completions of the first group get what they would get in a group of their own
    alone = group_advantages(torch.tensor([1.0, 0.0, 0.0]), 3, scale)
    assert adv[[0, 1, 3]].tolist() == pytest.approx(alone.tolist(), rel=1e-6)
    assert not torch.isnan(adv).any()


def test_a_group_with_one_scored_completion_has_no_advantage():
    adv = group_advantages(torch.tensor([1.0, NAN, NAN, NAN]), 4, "group")
    assert adv.tolist() == [0.0] * 4


def test_zero_variance_ignores_unscored_completions():
    flags = zero_variance_groups(torch.tensor([1.0, NAN, 1.0, 0.0, NAN, NAN]), 2)
    assert flags.tolist() == [True, False, True]
