"""Group-normalised advantages, the variants TRL's GRPOTrainer offers."""

from __future__ import annotations

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


def group_advantages(rewards: torch.Tensor, group_size: int, scale_rewards: str | bool = "group") -> torch.Tensor:
    """``(r - mean of its group) / (std + 1e-4)``, with the std of the group, of the batch, or none.

    ``rewards`` is flat with the ``group_size`` completions of each prompt next to each other. The std is
    the unbiased one (``torch.std``), as in TRL. Dr. GRPO recommends ``scale_rewards="none"``.
    """
    scale = normalise_scale(scale_rewards)
    if rewards.dim() != 1 or rewards.numel() % group_size:
        raise ValueError(
            f"rewards must be flat with a multiple of group_size={group_size} entries, got shape {tuple(rewards.shape)}"
        )
    grouped = rewards.view(-1, group_size)
    centred = (grouped - grouped.mean(dim=1, keepdim=True)).reshape(-1)
    if scale == "none":
        return centred
    if scale == "group":
        std = grouped.std(dim=1).repeat_interleave(group_size)
    else:
        std = rewards.std().expand_as(rewards)
    return centred / (std + STD_EPS)


def zero_variance_groups(rewards: torch.Tensor, group_size: int, tol: float = 1e-8) -> torch.Tensor:
    """A boolean per group: True where every completion got the same reward (no learning signal)."""
    grouped = rewards.view(-1, group_size)
    return (grouped.max(dim=1).values - grouped.min(dim=1).values) <= tol
