"""Rewards backed by the LLM judge: ``judge_accuracy`` (the judge decides every row), ``hybrid_accuracy``
(a rule verifier first, the judge where the rule could not decide) and ``rubric_score`` (weighted criteria).
docs/judge.md.

The question is the row's prompt as text (``question_key`` names a column to read it from instead). A row
the judge failed on (``judge_error``) gets None, as every infrastructure failure does.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from rewardkit._errors import ConfigError
from rewardkit.rewards.base import Scored
from rewardkit.rewards.infrastructure import DEFAULT_MAX_RATE, DEFAULT_WINDOW
from rewardkit.rewards.inputs import Batch
from rewardkit.rewards.verifier_rewards import DEFAULT_REFERENCE_KEYS, VerifierReward
from rewardkit.verifiers.judge.rubric import UNGIVEN


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


class RubricReward(VerifierReward):
    """``rubric_score``: with a spec's ``criteria`` every row is judged, its reference answer shown when the row
    has one; without, each row's rubric column is its reference (a row without one gets None)."""

    def __init__(self, *, answer_key: str | Sequence[str] | None, **options: Any) -> None:
        super().__init__("rubric_score", "rubric", **options)
        self.answer_key = answer_key

    def score(self, batch: Batch) -> Scored:
        if self.answer_key is None:
            return super().score(batch)
        answers = batch.column(self.answer_key, reward=self.name, required=False)
        given = [UNGIVEN if a is None else a for a in answers]
        return super().score(dataclasses.replace(batch, columns={**batch.columns, UNGIVEN: given}))


def rubric_score(
    *,
    criteria: Any = None,
    rubric_key: str = "rubric",
    reference_key: str | Sequence[str] = DEFAULT_REFERENCE_KEYS,
    question_key: str | None = None,
    max_infrastructure_failure_rate: float | None = DEFAULT_MAX_RATE,
    infrastructure_failure_window: int = DEFAULT_WINDOW,
    **judge_params: Any,
) -> VerifierReward:
    """The weight of the rubric's criteria a judge model finds met, over the weight of all (0.0 to 1.0).

    ``criteria`` (a list of texts or ``{criterion, weight, name}``) judges every row on the same rubric and logs
    the share of rows meeting each as ``criterion/<name>``; without it, the ``rubric_key`` column holds each
    row's own rubric. ``reference_key`` columns give a reference answer shown to the judge when present.
    ``mode: per_criterion`` asks one request per criterion. None where the judge failed (``judge_error``)."""
    if not isinstance(rubric_key, str) or not rubric_key:
        raise ConfigError(f"reward 'rubric_score': rubric_key must be a column name, got {rubric_key!r}")
    context: dict[str, str] = _context_keys(question_key, None)
    params = dict(judge_params)
    if criteria is not None:
        params["criteria"] = criteria
        return RubricReward(
            answer_key=reference_key,
            verifier_params=params,
            reference_key=UNGIVEN,
            context_keys=context,
            max_infrastructure_failure_rate=max_infrastructure_failure_rate,
            infrastructure_failure_window=infrastructure_failure_window,
        )
    keys = [reference_key] if isinstance(reference_key, str) else list(reference_key)
    context.update({"answer": keys[0]} if keys else {})
    return RubricReward(
        answer_key=None,
        verifier_params=params,
        reference_key=rubric_key,
        context_keys=context,
        max_infrastructure_failure_rate=max_infrastructure_failure_rate,
        infrastructure_failure_window=infrastructure_failure_window,
    )
