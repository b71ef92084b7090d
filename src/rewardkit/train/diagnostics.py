"""Training-dynamics diagnostics: per-step reward statistics and per-module update / gradient norms."""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

import torch

from rewardkit.train.advantages import zero_variance_groups
from rewardkit.train.lora import layer_index, module_key


def reward_statistics(total: torch.Tensor, components: dict[str, torch.Tensor], group_size: int) -> dict[str, float]:
    """Mean/std of the total reward and of each component (NaN = the reward did not apply, skipped),
    and the fraction of groups whose total reward has zero variance (they carry no learning signal)."""
    scored = total[~torch.isnan(total)]  # NaN: no reward scored the completion (left out, as in TRL)
    stats = {
        "reward/mean": scored.mean().item() if scored.numel() else math.nan,
        "reward/std": scored.std().item() if scored.numel() > 1 else 0.0,
        "reward/unscored_frac": 1.0 - scored.numel() / total.numel() if total.numel() else 0.0,
        "zero_variance_frac": zero_variance_groups(total, group_size).float().mean().item(),
    }
    for label, values in components.items():
        valid = values[~torch.isnan(values)]
        stats[f"reward/{label}/mean"] = valid.mean().item() if valid.numel() else math.nan
        stats[f"reward/{label}/std"] = valid.std().item() if valid.numel() > 1 else 0.0
        stats[f"reward/{label}/zero_variance_frac"] = (
            zero_variance_groups(torch.nan_to_num(values, nan=0.0), group_size).float().mean().item()
        )
    return stats


class ModuleNormTracker:
    """Per trainable module (LoRA A+B together, or a full weight): gradient norm, step-update norm, and for
    LoRA the norm of the adapter's effective weight change ``scale * B @ A`` since the start.

    Call ``before_step()`` after the backward pass (reads gradients, snapshots weights) and
    ``after_step()`` after ``optimizer.step()``. With several optimizer passes per training step, call
    ``start_step()`` once, ``record_grads()`` before each pass and ``after_step()`` after the last: the
    update norm then covers the whole step and the gradient norm is the mean over the passes.
    """

    def __init__(self, model: Any) -> None:
        self.model = model
        self.groups: dict[str, list[torch.nn.Parameter]] = defaultdict(list)
        for name, param in model.named_parameters():
            if param.requires_grad:
                self.groups[module_key(name)].append(param)
        self._before: dict[str, list[torch.Tensor]] = {}
        self._grads: dict[str, list[float]] = defaultdict(list)

    def start_step(self) -> None:
        self._before = {key: [p.detach().clone() for p in params] for key, params in self.groups.items()}
        self._grads = defaultdict(list)

    def record_grads(self) -> None:
        for key, params in self.groups.items():
            self._grads[key].append(
                math.sqrt(sum(float(p.grad.detach().float().pow(2).sum()) for p in params if p.grad is not None))
            )

    def before_step(self) -> None:
        self.start_step()
        self.record_grads()

    def after_step(self) -> dict[str, dict[str, float]]:
        out: dict[str, dict[str, float]] = {}
        deltas = lora_delta_norms(self.model)
        for key, params in self.groups.items():
            update = math.sqrt(
                sum(
                    float((p.detach() - old).float().pow(2).sum())
                    for p, old in zip(params, self._before[key], strict=True)
                )
            )
            grads = self._grads.get(key) or [0.0]
            row = {"grad_norm": sum(grads) / len(grads), "update_norm": update}
            if key in deltas:
                row["delta_norm"] = deltas[key]
            out[key] = row
        self._before = {}
        return out


@torch.no_grad()  # type: ignore[untyped-decorator]  # torch is not followed by mypy (pyproject.toml)
def lora_delta_norms(model: Any) -> dict[str, float]:
    """Frobenius norm of each LoRA module's effective weight change ``scale * B @ A``."""
    out = {}
    for name, module in model.named_modules():
        lora_a = getattr(module, "lora_A", None)
        if not isinstance(lora_a, torch.nn.ModuleDict) or "default" not in lora_a:
            continue
        a = lora_a["default"].weight.float()
        b = module.lora_B["default"].weight.float()
        out[module_key(name + ".lora_A")] = float(module.scaling["default"] * torch.linalg.matrix_norm(b @ a))
    return out


def per_layer(module_norms: dict[str, dict[str, float]], field: str = "update_norm") -> dict[str, float]:
    """Aggregate a per-module norm by transformer layer (root of the sum of squares); "other" for the rest."""
    totals: dict[str, float] = defaultdict(float)
    for key, row in module_norms.items():
        idx = layer_index(key)
        totals["other" if idx is None else f"layer{idx}"] += row.get(field, 0.0) ** 2
    return {k: math.sqrt(v) for k, v in sorted(totals.items())}


def per_kind(module_norms: dict[str, dict[str, float]], field: str = "update_norm") -> dict[str, float]:
    """Aggregate a per-module norm by module kind (``q_proj``, ``down_proj``, ...)."""
    totals: dict[str, float] = defaultdict(float)
    for key, row in module_norms.items():
        totals[key.split(".")[-1]] += row.get(field, 0.0) ** 2
    return {k: math.sqrt(v) for k, v in sorted(totals.items())}
