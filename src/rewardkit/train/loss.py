"""The clipped policy-ratio objective with an optional KL penalty, and its per-step statistics."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import torch

LossType = Literal["grpo", "bnpo", "dr_grpo"]


@dataclass(frozen=True)
class LossOutput:
    loss: torch.Tensor
    clip_fraction: float  # of completion tokens whose ratio the clip bounded (the objective's min chose it)
    clip_low_fraction: float
    clip_high_fraction: float
    kl: float  # mean per-token k3 estimate of KL(policy || reference); 0 without a reference
    ratio_mean: float


def k3_kl(logp: torch.Tensor, ref_logp: torch.Tensor) -> torch.Tensor:
    """Per-token ``exp(ref - logp) - (ref - logp) - 1``: unbiased, non-negative KL(policy || ref) estimate."""
    delta = ref_logp - logp
    return torch.exp(delta) - delta - 1


def masked_mean(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return (values * mask).sum() / mask.sum().clamp(min=1)


def aggregate(
    per_token: torch.Tensor, mask: torch.Tensor, loss_type: LossType, max_completion_length: int
) -> torch.Tensor:
    """Reduce a (batch, tokens) loss to a scalar the way TRL's loss types do.

    grpo: mean over each sequence's tokens, then over sequences (short sequences weigh more per token);
    bnpo: mean over all tokens of the batch;
    dr_grpo: sum over tokens / (batch x max_completion_length), a constant, so no length bias.
    """
    mask = mask.to(per_token.dtype)
    if loss_type == "grpo":
        return ((per_token * mask).sum(-1) / mask.sum(-1).clamp(min=1)).mean()
    if loss_type == "bnpo":
        return (per_token * mask).sum() / mask.sum().clamp(min=1)
    if loss_type == "dr_grpo":
        return (per_token * mask).sum() / (per_token.size(0) * max_completion_length)
    raise ValueError(f"unknown loss_type {loss_type!r}; expected grpo, bnpo or dr_grpo")


def clipped_policy_loss(
    logp: torch.Tensor,
    old_logp: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    *,
    epsilon_low: float = 0.2,
    epsilon_high: float | None = None,
    beta: float = 0.0,
    ref_logp: torch.Tensor | None = None,
    loss_type: LossType = "grpo",
    max_completion_length: int | None = None,
) -> LossOutput:
    """``-min(r A, clip(r, 1-eps_low, 1+eps_high) A) + beta KL`` per token, aggregated by ``loss_type``.

    ``logp``/``old_logp``/``ref_logp``/``mask`` are (batch, tokens); ``advantages`` is (batch,).
    """
    eps_high = epsilon_low if epsilon_high is None else epsilon_high
    ratio = torch.exp(logp - old_logp)
    adv = advantages.unsqueeze(1)
    unclipped = ratio * adv
    clipped = torch.clamp(ratio, 1 - epsilon_low, 1 + eps_high) * adv
    per_token = -torch.min(unclipped, clipped)
    kl_value = 0.0
    if beta != 0.0:
        if ref_logp is None:
            raise ValueError("beta != 0 needs ref_logp")
        kl = k3_kl(logp, ref_logp)
        per_token = per_token + beta * kl
        kl_value = masked_mean(kl.detach(), mask).item()
    elif ref_logp is not None:
        kl_value = masked_mean(k3_kl(logp.detach(), ref_logp), mask).item()
    loss = aggregate(per_token, mask, loss_type, max_completion_length or logp.size(1))
    with torch.no_grad():
        low = (ratio < 1 - epsilon_low) & (adv < 0)
        high = (ratio > 1 + eps_high) & (adv > 0)
        fmask = mask.to(ratio.dtype)
        return LossOutput(
            loss=loss,
            clip_fraction=masked_mean((low | high).to(ratio.dtype), fmask).item(),
            clip_low_fraction=masked_mean(low.to(ratio.dtype), fmask).item(),
            clip_high_fraction=masked_mean(high.to(ratio.dtype), fmask).item(),
            kl=kl_value,
            ratio_mean=masked_mean(ratio, fmask).item(),
        )
