"""Small TRL-style rewards for the trainer tests (importable as ``toy_rewards:<name>``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def exact_answer(prompts: list[Any], completions: list[str], answer: list[str], **kwargs: Any) -> list[float]:
    """1.0 when the completion, stripped, is the answer; reports how many it saw through log_metric."""
    log_metric = kwargs.get("log_metric")
    if log_metric is not None:
        log_metric("exact_answer/seen", float(len(completions)))
    return [1.0 if c.strip() == a else 0.0 for c, a in zip(completions, answer, strict=False)]


def digits_only(prompts: list[Any], completions: list[str], **kwargs: Any) -> list[float | None]:
    """Fraction of characters that are digits; None (not applicable) for an empty completion."""
    return [None if not c else sum(ch.isdigit() for ch in c) / len(c) for c in completions]


def strict_signature(completions: list[str], answer: list[str]) -> list[float]:
    """No **kwargs: the trainer must pass only what it names."""
    return [float(len(c)) for c in completions]


def constant(prompts: list[Any], completions: list[Any], value: float = 1.0, **kwargs: Any) -> list[float]:
    """The same value for every completion (``params: {value: ...}``), so a total shows which reward ran."""
    return [value] * len(completions)


def scaled_length(factor: float) -> Callable[..., list[float]]:
    """A factory (``function:`` with ``params: {factor: ...}``): the reward ``factor x len(completion)``."""

    def reward(completions: list[str], **kwargs: Any) -> list[float]:
        return [factor * len(c) for c in completions]

    return reward
