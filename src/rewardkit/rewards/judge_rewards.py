"""Rewards backed by the LLM judge: ``judge_accuracy`` (the judge decides every row) and ``hybrid_accuracy``
(a rule verifier first, the judge where the rule could not decide). docs/judge.md.

The question is the row's prompt as text (``question_key`` names a column to read it from instead). A row
the judge failed on (``judge_error``) gets None, as every infrastructure failure does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rewardkit.rewards.infrastructure import DEFAULT_MAX_RATE, DEFAULT_WINDOW
from rewardkit.rewards.verifier_rewards import DEFAULT_REFERENCE_KEYS, VerifierReward


def _context_keys(question_key: str | None, extra: Mapping[str, str] | None) -> dict[str, str]:
    keys = dict(extra or {})
    if question_key is not None:
        keys["question"] = question_key
    return keys


def judge_accuracy(
    *,
    reference_key: str | Sequence[str] = DEFAULT_REFERENCE_KEYS,
    question_key: str | None = None,
    max_infrastructure_failure_rate: float | None = DEFAULT_MAX_RATE,
    infrastructure_failure_window: int = DEFAULT_WINDOW,
    **judge_params: Any,
) -> VerifierReward:
    """1.0 when the judge model says the completion's answer matches the reference, 0.0 when it says not;
    None when the judge could not be asked or gave no readable verdict (``judge_error``)."""
    return VerifierReward(
        "judge_accuracy",
        "judge",
        verifier_params=judge_params,
        reference_key=reference_key,
        context_keys=_context_keys(question_key, None),
        max_infrastructure_failure_rate=max_infrastructure_failure_rate,
        infrastructure_failure_window=infrastructure_failure_window,
    )


def hybrid_accuracy(
    *,
    rule: str = "math",
    judge: Mapping[str, Any],
    rule_params: Mapping[str, Any] | None = None,
    judge_on: Sequence[str] | None = None,
    reference_key: str | Sequence[str] = DEFAULT_REFERENCE_KEYS,
    question_key: str | None = None,
    context_keys: Mapping[str, str] | None = None,
    max_infrastructure_failure_rate: float | None = DEFAULT_MAX_RATE,
    infrastructure_failure_window: int = DEFAULT_WINDOW,
) -> VerifierReward:
    """The ``rule`` verifier's verdict (``math`` by default), and the judge's where the rule could not decide
    (no answer found, unparsable, a reference it cannot read). ``context_keys``: the rule's context columns
    (``{options: choices}`` for ``mcq``)."""
    params: dict[str, Any] = {"rule": rule, "judge": dict(judge), "rule_params": dict(rule_params or {})}
    if judge_on is not None:
        params["judge_on"] = list(judge_on)
    return VerifierReward(
        "hybrid_accuracy",
        "hybrid",
        verifier_params=params,
        reference_key=reference_key,
        context_keys=_context_keys(question_key, context_keys),
        max_infrastructure_failure_rate=max_infrastructure_failure_rate,
        infrastructure_failure_window=infrastructure_failure_window,
    )
