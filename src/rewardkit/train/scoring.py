"""Call TRL-style reward functions on a batch of completions and collect their components and metrics."""

from __future__ import annotations

import importlib
import inspect
import math
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from rewardkit._errors import ConfigError

RewardFn = Callable[..., list[float | None]]


@dataclass
class WeightedReward:
    """One reward of the trainer's config with its label and weight (a combinator's: ``Term``)."""

    label: str
    fn: RewardFn
    weight: float = 1.0
    accepts: frozenset[str] | None = None  # keyword names it takes; None: it takes **kwargs

    @classmethod
    def of(cls, label: str, fn: RewardFn, weight: float = 1.0) -> WeightedReward:
        try:
            params = inspect.signature(fn).parameters.values()
        except (TypeError, ValueError):
            return cls(label, fn, weight)
        if any(p.kind is p.VAR_KEYWORD for p in params):
            return cls(label, fn, weight)
        return cls(label, fn, weight, frozenset(p.name for p in params))


def resolve_rewards(entries: list[Any]) -> list[WeightedReward]:
    """WeightedRewards from config entries: a registered reward name or a reward spec (what ``rewardkit score
    --reward`` takes), or a ``module:attr`` import.

    An entry without ``label`` is labelled with its reward's own name (a spec's ``name``, a verifier_accuracy
    term's verifier); two such labels that collide become ``x`` and ``x_2``, in config order.
    """
    from rewardkit.plugins.params import check_params
    from rewardkit.rewards.base import FunctionReward, Reward
    from rewardkit.rewards.spec import unique_label
    from rewardkit.scoring.loading import is_spec_path, resolve_reward

    terms = []
    used: set[str] = {entry.label for entry in entries if entry.label}
    for i, entry in enumerate(entries):
        if entry.name is not None or entry.spec is not None:
            source = entry.spec if entry.spec is not None else entry.name
            where = f"config.rewards[{i}].{'spec' if entry.spec is not None else 'name'}"
            if entry.params and (entry.spec is not None or is_spec_path(entry.name)):
                raise ConfigError(
                    f"config.rewards[{i}].params: {source!r} is a reward spec, which gives each term its own "
                    f"'params'; 'params' goes with a registered reward's 'name'"
                )
            try:
                reward = resolve_reward(source, entry.params)
            except ConfigError as exc:
                raise ConfigError(f"{where}: {exc}") from None
            # A plain function comes back wrapped; call it directly so only the columns it names reach it.
            fn: Callable[..., Any] = reward.func if isinstance(reward, FunctionReward) else reward
            default_label = reward.name
        else:
            module_name, _, attr = entry.function.partition(":")
            if not attr:
                raise ConfigError(f"rewards[{i}].function: expected 'module:attribute', got {entry.function!r}")
            try:
                fn = getattr(importlib.import_module(module_name), attr)
            except (ImportError, AttributeError) as exc:
                raise ConfigError(f"rewards[{i}].function: cannot import {entry.function!r}: {exc}") from None
            if entry.params:  # a factory: params are its arguments, checked as every registered one's are
                try:
                    check_params("reward factory", entry.function, fn, entry.params)
                except ConfigError as exc:
                    raise ConfigError(f"config.rewards[{i}].params: {exc}") from None
                fn = fn(**entry.params)
            default_label = attr
        label = entry.label or unique_label(default_label, used)
        if isinstance(fn, Reward):
            fn.__name__ = label  # a Reward reports its own metrics (rewards/<name>/...) under its name
        terms.append(WeightedReward.of(label, fn, entry.weight))
    labels = [t.label for t in terms]
    duplicates = sorted({x for x in labels if labels.count(x) > 1})
    if duplicates:
        raise ConfigError(f"rewards: duplicate labels {duplicates}; give each entry a distinct 'label'")
    return terms


@dataclass
class RewardTensors:
    """A batch's rewards as the trainer uses them, as tensors (a Reward's own result: ``base.Scored``)."""

    total: torch.Tensor  # (N,) weighted sum of the components, a None counting as 0; NaN where all are None
    components: dict[str, torch.Tensor]  # label -> (N,), NaN where the reward returned None
    metrics: dict[str, float] = field(default_factory=dict)  # what rewards reported through log_metric


def score_completions(
    terms: list[WeightedReward],
    prompts: list[Any],
    completions: list[Any],
    rows: list[dict[str, Any]],
    extra: dict[str, Any] | None = None,
) -> RewardTensors:
    """Call every reward as TRL does: ``fn(prompts=, completions=, **dataset columns, **extra)``."""
    columns = {k: [row.get(k) for row in rows] for k in rows[0] if k != "prompt"}
    reported: dict[str, list[float]] = defaultdict(list)

    def log_metric(name: str, value: Any) -> None:
        values = value if isinstance(value, (list, tuple)) else [value]
        reported[name].extend(float(v) for v in values if v is not None)

    components: dict[str, torch.Tensor] = {}
    total = torch.zeros(len(completions), dtype=torch.float64)
    scored = torch.zeros(len(completions), dtype=torch.bool)
    for term in terms:
        kwargs = {"prompts": prompts, "completions": completions, **columns, **(extra or {}), "log_metric": log_metric}
        if term.accepts is not None:
            kwargs = {k: v for k, v in kwargs.items() if k in term.accepts}
        values = term.fn(**kwargs)
        if len(values) != len(completions):
            raise ConfigError(f"reward {term.label!r} returned {len(values)} values for {len(completions)} completions")
        tensor = torch.tensor([math.nan if v is None else float(v) for v in values], dtype=torch.float64)
        components[term.label] = tensor
        total += term.weight * torch.nan_to_num(tensor, nan=0.0)
        scored |= ~torch.isnan(tensor)
    # As TRL does: a completion no reward scored (all None: nobody could judge it) is NaN, not 0, so the
    # advantages leave it out of its group's baseline and give it none (advantages.group_advantages).
    total[~scored] = math.nan
    metrics = {name: sum(v) / len(v) for name, v in reported.items() if v}
    return RewardTensors(total.float(), {k: v.float() for k, v in components.items()}, metrics)
