"""Group-normalised advantages, the variants TRL's GRPOTrainer offers."""

from __future__ import annotations

import math
from typing import Literal

import torch

STD_EPS = 1e-4  # TRL's constant: a group with zero spread gets advantage 0, not a division by zero

ScaleRewards = Literal["group", "batch", "none"]


def normalise_scale(scale_rewards: str | bool) -> ScaleRewards:
    """Accept TRL's old boolean spelling: True is "group", False is "none"."""
    if scale_rewards is True:
        return "group"
    if scale_rewards is False:
        return "none"
    if scale_rewards not in ("group", "batch", "none"):
        raise ValueError(f"scale_rewards must be 'group', 'batch' or 'none', got {scale_rewards!r}")
    return scale_rewards  # type: ignore[return-value]


def nanstd(values: torch.Tensor, dim: int | None = None) -> torch.Tensor:
    """The unbiased std of the values that are not NaN (NaN where fewer than two are), as TRL's ``nanstd``."""
    mean = torch.nanmean(values, dim=dim, keepdim=True) if dim is not None else torch.nanmean(values)
    squares = (values - mean) ** 2
    count = (~torch.isnan(values)).sum(dim=dim) if dim is not None else (~torch.isnan(values)).sum()
    total = torch.nansum(squares, dim=dim) if dim is not None else torch.nansum(squares)
    return torch.where(count > 1, (total / (count - 1).clamp(min=1)).sqrt(), torch.full_like(total, math.nan))


def group_advantages(rewards: torch.Tensor, group_size: int, scale_rewards: str | bool = "group") -> torch.Tensor:
    """``(r - mean of its group) / (std + 1e-4)``, with the std of the group, of the batch, or none.

    ``rewards`` is flat with the ``group_size`` completions of each prompt next to each other. The std is
    the unbiased one (``torch.std``), as in TRL. Dr. GRPO recommends ``scale_rewards="none"``.

    A NaN reward is a completion no reward could score (every reward returned None: an infrastructure
    failure, a row no term applies to). As in TRL, it is left out of its group's mean and std and its
    advantage is 0, so it neither moves the policy nor shifts its neighbours' baseline.
    """
    scale = normalise_scale(scale_rewards)
    if rewards.dim() != 1 or rewards.numel() % group_size:
        raise ValueError(
            f"rewards must be flat with a multiple of group_size={group_size} entries, got shape {tuple(rewards.shape)}"
        )
    grouped = rewards.view(-1, group_size)
    centred = (grouped - torch.nanmean(grouped, dim=1, keepdim=True)).reshape(-1)
    if scale == "none":
        return torch.nan_to_num(centred, nan=0.0)
    if scale == "group":
        std = nanstd(grouped, dim=1).repeat_interleave(group_size)
    else:
        std = nanstd(rewards).expand_as(rewards)
    return torch.nan_to_num(centred / (std + STD_EPS), nan=0.0)


def zero_variance_groups(rewards: torch.Tensor, group_size: int, tol: float = 1e-8) -> torch.Tensor:
    """A boolean per group: True where every completion that has a reward got the same one (no learning
    signal); NaN rewards (unscorable completions) are left out, and a group with none is True."""
    grouped = rewards.view(-1, group_size)
    scored = ~torch.isnan(grouped)
    high = torch.where(scored, grouped, torch.full_like(grouped, -math.inf)).max(dim=1).values
    low = torch.where(scored, grouped, torch.full_like(grouped, math.inf)).min(dim=1).values
    return ~scored.any(dim=1) | ((high - low) <= tol)
