"""What the budget rewards (``length_budget``, ``group_length``) share: how long a completion is (tokens or
words, the whole completion or its thinking) and the correctness term they wrap."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from rewardkit._errors import ConfigError
from rewardkit.rewards.base import Reward, Scored, guarded_score
from rewardkit.rewards.inputs import Batch
from rewardkit.rewards.tokens import CompletionTokens
from rewardkit.verifiers.verdict import is_infrastructure_failure

COUNT_UNITS = ("auto", "tokens", "words")
COUNTED = ("completion", "thinking")


def thinking_text(text: str) -> str:
    """The reasoning of a completion: what precedes the first ``</think>`` (without a leading ``<think>``).

    A completion with no ``</think>`` thought throughout when it opened a ``<think>`` block (it was cut off
    mid-thought), and did not think at all otherwise.
    """
    stripped = text.lstrip()
    opened = stripped.startswith("<think>")
    body = stripped[len("<think>") :] if opened else text
    end = body.find("</think>")
    if end >= 0:
        return body[:end]
    return body if opened else ""


class BudgetLength:
    """Counts each completion in tokens or words, over the whole completion or its thinking only.

    ``tokens`` of the whole completion are TRL's ``completion_ids`` when the call has them, else the
    ``tokenizer``'s; the thinking alone is always tokenized with ``tokenizer`` (``completion_ids`` cover the
    whole completion). ``words`` are whitespace-separated. ``auto`` is tokens where they can be had, else words.
    """

    def __init__(self, reward: str, unit: str, count: str, tokenizer: str | None) -> None:
        if unit not in COUNT_UNITS:
            raise ConfigError(f"{reward}: unit must be one of {', '.join(COUNT_UNITS)}, got {unit!r}")
        if count not in COUNTED:
            raise ConfigError(f"{reward}: count must be one of {', '.join(COUNTED)}, got {count!r}")
        self.reward = reward
        self.unit = unit
        self.count = count
        self.tokens = CompletionTokens(reward, tokenizer, text_unit="words")

    def unit_for(self, batch: Batch) -> str:
        """``tokens`` or ``words``: what this call's lengths are counted in."""
        if self.unit != "auto":
            return self.unit
        if self.count == "thinking":
            return "tokens" if self.tokens.tokenizer else "words"
        return "tokens" if self.tokens.available(batch) else "words"

    def lengths(self, batch: Batch) -> list[int]:
        unit = self.unit_for(batch)
        if self.count == "completion":
            if unit == "words":
                return [len(t.split()) for t in batch.texts]
            return [len(ids) for ids in self.tokens.ids(batch)]
        thoughts = [thinking_text(t) for t in batch.texts]
        if unit == "words":
            return [len(t.split()) for t in thoughts]
        if not self.tokens.tokenizer:
            raise ConfigError(
                f"{self.reward}: counting the thinking in tokens needs a tokenizer parameter (TRL's completion_ids "
                f"cover the whole completion); set tokenizer: <model name or path>, unit: words or count: completion"
            )
        return [len(ids) for ids in self.tokens.ids(Batch(completions=thoughts, prompts=[None] * len(thoughts)))]


def correctness_term(reward: str, node: str | Mapping[str, Any]) -> Reward:
    """The correctness reward a budget reward wraps, built from a spec node (``math_accuracy``, or
    ``{reward: mcq_accuracy, params: {...}}``, or a whole ``combine:`` node)."""
    from rewardkit.plugins.manager import default_host
    from rewardkit.rewards.spec import SpecBuilder

    if not isinstance(node, (str, Mapping)):
        raise ConfigError(f"{reward}: correctness must be a reward name or a spec node, got {node!r}")
    built, _, weight = SpecBuilder(default_host().registries).node(node, f"{reward}.correctness")
    if weight != 1.0:
        raise ConfigError(f"{reward}.correctness: a weight has no meaning here (the formula fixes it), got {weight}")
    return built


def judge(term: Reward, batch: Batch, label: str) -> tuple[list[float | None], list[str | None], list[str | None]]:
    """The correctness term's value, status and extracted answer per row (the first verifier's; an
    infrastructure failure anywhere in the term wins, so a combinator above drops the row)."""
    scored: Scored = guarded_score(term, batch, label)
    n = len(batch)
    statuses: list[str | None] = [None] * n
    extracted: list[str | None] = [None] * n
    for key, column in scored.statuses.items():
        answers = scored.extracted.get(key, [None] * n)
        for i, status in enumerate(column):
            if status is None:
                continue
            held = statuses[i]
            if held is None or (is_infrastructure_failure(status) and not is_infrastructure_failure(held)):
                statuses[i], extracted[i] = status, answers[i]
    values = [None if v is None or math.isnan(v) else float(v) for v in scored.values]
    return values, statuses, extracted
