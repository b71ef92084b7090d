"""The "rubric" verifier: a judge model checks a completion against weighted criteria.

The criteria are the verifier's ``criteria`` parameter, or the row's own rubric, given as the reference (a
dataset column of rubrics; :mod:`~rewardkit.verifiers.judge.rubric_prompt` says what a rubric may look like).
``mode="one_call"`` asks about every criterion in one request, ``"per_criterion"`` one request each. The score is
the weight of the criteria met over the weight of all. Context: ``question`` (a reward passes the row's
prompt) and ``answer``, a reference answer shown to the judge. A call that fails, or a reply that leaves a
criterion out, answers one twice or is unreadable, is ``judge_error`` (None), never partial credit; a rubric
that cannot be read is ``invalid_reference``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from rewardkit._errors import ConfigError
from rewardkit.verifiers.judge.chat_client import JudgeCallError
from rewardkit.verifiers.judge.config import JudgeConfig
from rewardkit.verifiers.judge.disk_cache import cache_key
from rewardkit.verifiers.judge.prompt import PromptBuilder, reference_text
from rewardkit.verifiers.judge.rubric_prompt import (
    ALL_CRITERIA_FORMAT,
    NO_REFERENCE,
    ONE_CRITERION_FORMAT,
    RUBRIC_PLACEHOLDERS,
    RUBRIC_SYSTEM_TEMPLATE,
    RUBRIC_USER_TEMPLATE,
    SINGLE_CRITERION_USER_TEMPLATE,
    Criterion,
    RubricError,
    RubricReply,
    criteria_block,
    parse_all_criteria,
    parse_one_criterion,
    read_rubric,
)
from rewardkit.verifiers.judge.verifier import JudgeVerifier, judged_text, usage_metrics
from rewardkit.verifiers.verdict import Status, Verdict

MODES = ("one_call", "per_criterion")
#: The reference of a row judged on a spec's criteria that has no reference answer.
UNGIVEN = "\x00(no reference answer)"


@dataclass(frozen=True)
class RubricConfig(JudgeConfig):
    """The judge's settings, and ``criteria`` (None: each row's rubric is its reference) and ``mode``."""

    PLACEHOLDERS: ClassVar[tuple[str, ...]] = RUBRIC_PLACEHOLDERS
    NEEDED: ClassVar[tuple[str, ...]] = ("completion", "criteria")

    system_template: str | None = RUBRIC_SYSTEM_TEMPLATE
    user_template: str = RUBRIC_USER_TEMPLATE
    criteria: Any = None
    mode: str = "one_call"
    max_tokens: int = 512

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.mode not in MODES:
            raise ConfigError(f"rubric: mode must be one of {', '.join(MODES)}, got {self.mode!r}")
        if self.criteria is not None:
            try:
                read_rubric(self.criteria)
            except RubricError as exc:
                raise ConfigError(f"rubric: criteria: {exc}") from None


class RubricVerifier(JudgeVerifier):
    """Weighted criteria judged by an LLM (see the module docstring). Details: ``criteria`` (per criterion:
    ``met``, ``weight``, ``reason``), ``model``, ``usage``, ``cost``, ``cached``."""

    name = "rubric"
    params_schema = RubricConfig
    uses_question = True

    def __init__(self, *, base_url: str, model: str, **settings: Any) -> None:
        rubric = RubricConfig(base_url=base_url, model=model, **settings)
        judge_settings = {k: v for k, v in settings.items() if k not in ("criteria", "mode")}
        judge_settings.setdefault("max_tokens", rubric.max_tokens)
        judge_settings["system_template"] = rubric.system_template
        judge_settings["user_template"] = rubric.user_template
        super().__init__(base_url=base_url, model=model, **{**judge_settings, "user_template": "{completion}"})
        self.config: RubricConfig = rubric
        self.fixed = read_rubric(rubric.criteria) if rubric.criteria is not None else None
        one = rubric.user_template if "user_template" in settings else SINGLE_CRITERION_USER_TEMPLATE
        self.prompt = PromptBuilder(rubric.system_template, rubric.user_template)
        self.single_prompt = PromptBuilder(rubric.system_template, one)

    def _verify(self, completion: Any, reference: Any, **context: Any) -> Verdict:
        try:
            criteria = self.fixed if self.fixed is not None else read_rubric(reference)
        except RubricError as exc:
            return Verdict.fail(Status.INVALID_REFERENCE, error=f"bad rubric (not the model's fault): {exc}")
        answer = judged_text(completion)
        if answer is None:
            return Verdict.fail(Status.NO_ANSWER, reason="no answer after the think block (or it never closed)")
        question = context.get("question")
        question_text = question if isinstance(question, str) else (None if question is None else str(question))
        gold = context.get("answer")
        if gold is None and self.fixed is not None and reference != UNGIVEN:
            gold = reference  # fixed criteria: the reference is the reference answer
        gold_text = NO_REFERENCE if gold is None else reference_text(gold)
        if self.config.mode == "one_call":
            record = self._ask(criteria, question_text, gold_text, answer)
        else:
            record = self._ask_each(criteria, question_text, gold_text, answer)
        if "problem" in record:
            return Verdict.fail(
                Status.JUDGE_ERROR,
                error=record["problem"],
                model=self.config.model,
                attempts=record.get("attempts", 0),
                **_usage_of(record),
            )
        return self._rubric_verdict(criteria, record)

    def _ask(self, criteria: Sequence[Criterion], question: str | None, gold: str, answer: str) -> dict[str, Any]:
        key = self._rubric_key("all", criteria, question, gold, answer)
        messages = self.prompt.messages(question, gold, answer, {"criteria": criteria_block(criteria)})
        return self._call(key, messages, ALL_CRITERIA_FORMAT, lambda text: parse_all_criteria(text, len(criteria)))

    def _ask_each(self, criteria: Sequence[Criterion], question: str | None, gold: str, answer: str) -> dict[str, Any]:
        merged: dict[str, Any] = {"met": [], "reasons": [], "prompt_tokens": 0, "completion_tokens": 0}
        merged.update(cached=True, attempts=0)
        for criterion in criteria:
            key = self._rubric_key("one", [criterion], question, gold, answer)
            messages = self.single_prompt.messages(question, gold, answer, {"criteria": criterion.text})
            record = self._call(key, messages, ONE_CRITERION_FORMAT, parse_one_criterion)
            for field in ("prompt_tokens", "completion_tokens", "attempts"):
                merged[field] += record.get(field, 0)
            if "problem" in record:
                return {**merged, "problem": record["problem"]}
            merged["met"] += record["met"]
            merged["reasons"] += record["reasons"]
            merged["cached"] = merged["cached"] and record["cached"]
        return merged

    def _call(self, key: str, messages: list[dict[str, str]], schema: Mapping[str, Any], parse: Any) -> dict[str, Any]:
        """One request (or its cached answer): ``met`` and ``reasons``, or ``problem``; token counts."""
        if self.cache is not None:
            stored = self.cache.get(key)
            if stored is not None:
                return {**stored, "cached": True, "attempts": 0, "prompt_tokens": 0, "completion_tokens": 0}
        try:
            reply = self.client.complete(messages, schema)
        except JudgeCallError as exc:
            return {"problem": str(exc), "attempts": exc.attempts}
        parsed: RubricReply = parse(reply.content)
        tokens = {
            "prompt_tokens": reply.prompt_tokens or 0,
            "completion_tokens": reply.completion_tokens or 0,
            "attempts": reply.attempts,
        }
        if parsed.met is None:
            return {"problem": parsed.problem, **tokens}
        record = {"met": list(parsed.met), "reasons": list(parsed.reasons)}
        if self.cache is not None:
            self.cache.put(key, record)
        return {**record, **tokens, "cached": False}

    def _rubric_key(
        self, kind: str, criteria: Sequence[Criterion], question: str | None, gold: str, answer: str
    ) -> str:
        c = self.config
        return cache_key(
            {
                "endpoint": [c.base_url.rstrip("/"), c.model],
                "rubric": [kind, c.system_template, c.user_template, [cr.text for cr in criteria]],
                "question": question,
                "reference": gold,
                "completion": answer,
                "temperature": c.temperature,
                "max_tokens": c.max_tokens,
            }
        )

    def _rubric_verdict(self, criteria: Sequence[Criterion], record: Mapping[str, Any]) -> Verdict:
        met = record["met"]
        total = sum(c.weight for c in criteria)
        earned = sum(c.weight for c, ok in zip(criteria, met, strict=True) if ok)
        per = {
            c.name: {"met": ok, "weight": c.weight, "reason": why}
            for c, ok, why in zip(criteria, met, record["reasons"], strict=True)
        }
        usage = _usage_of(record)
        details: dict[str, Any] = {
            "criteria": per,
            "model": self.config.model,
            "cached": record["cached"],
            "attempts": record.get("attempts", 0),
            **usage,
        }
        cost = self.cost_of(usage["usage"])
        if cost is not None:
            details["cost"] = cost
        score = earned / total
        return Verdict(score, all(met), Status.OK, f"{sum(met)}/{len(met)} criteria", details)

    def batch_metrics(self, verdicts: Sequence[Verdict]) -> dict[str, float]:
        """Usage, and for a spec's fixed criteria the share of judged rows meeting each (``criterion/<name>``)."""
        out = usage_metrics(verdicts)
        judged = [v for v in verdicts if isinstance(v.details.get("criteria"), Mapping)]
        if self.fixed is not None and judged:
            for c in self.fixed:
                out[f"criterion/{c.name}"] = sum(bool(v.details["criteria"][c.name]["met"]) for v in judged) / len(
                    judged
                )
        return out


def _usage_of(record: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "usage": {
            "prompt_tokens": int(record.get("prompt_tokens") or 0),
            "completion_tokens": int(record.get("completion_tokens") or 0),
        }
    }
