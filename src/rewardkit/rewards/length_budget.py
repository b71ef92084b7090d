"""L1's target-length reward (Aggarwal & Welleck 2025, LCPO): correctness traded against a length budget.

Two stages, as in a verifier: find each row's **budget** (a column, else the prompt's "Think for N tokens."),
then **score** the completion's length against it, with the correctness of a wrapped reward.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from rewardkit._errors import ConfigError
from rewardkit.rewards.base import Reward, Scored
from rewardkit.rewards.combinators import Term
from rewardkit.rewards.inputs import Batch
from rewardkit.rewards.length_count import BudgetLength, correctness_term, judge

MODES = ("exact", "max", "auto")
# L1's prompts: "Think for 512 tokens." (exact) and "Think for maximum 512 tokens." (max).
DEFAULT_BUDGET_PATTERN = r"think for (?P<max>maximum |at most |up to )?(?P<budget>\d+) tokens"
NO_BUDGET, INVALID_BUDGET = "no_budget", "invalid_budget"
L1_NO_BUDGET = -1  # L1's datasets store -1 for "no length constraint", and -N for "at most N"


def l1_exact(correct: float, target: float, used: float, alpha: float) -> float:
    """L1-Exact: ``correct - alpha * |target - used|``."""
    return correct - alpha * abs(target - used)


def l1_max(correct: float, target: float, used: float, alpha: float, delta: float) -> float:
    """L1-Max: ``correct * clip(alpha * (target - used) + delta, 0, 1)``."""
    return correct * min(max(alpha * (target - used) + delta, 0.0), 1.0)


@dataclass(frozen=True)
class Budget:
    """A row's length budget: ``tokens`` (words when counting words) and whether it is exact or a maximum."""

    tokens: int
    mode: str


def prompt_text(prompt: Any) -> str:
    """A prompt's text: the string, or every message's content joined (the budget may be in a system turn)."""
    if prompt is None:
        return ""
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, Mapping):
        prompt = [prompt]
    parts = []
    for message in prompt if isinstance(prompt, list) else [prompt]:
        content = message.get("content") if isinstance(message, Mapping) else message
        if isinstance(content, list):
            content = " ".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
        if content:
            parts.append(str(content))
    return "\n".join(parts)


class BudgetFinder:
    """Each row's budget: the ``budget_key`` column, else the last match of ``budget_pattern`` in the prompt.

    A column value of ``-N`` is L1's "at most N" (``-1``: no budget); in ``auto`` mode the sign, or the
    pattern's ``max`` group, picks L1-Max, else L1-Exact. A fixed ``mode`` uses ``|N|`` either way.
    """

    def __init__(self, reward: str, mode: str, budget_key: str | None, budget_pattern: str | None) -> None:
        if mode not in MODES:
            raise ConfigError(f"{reward}: mode must be one of {', '.join(MODES)}, got {mode!r}")
        if budget_key is None and budget_pattern is None:
            raise ConfigError(f"{reward}: give budget_key (a column) or budget_pattern (a regex), or both")
        self.mode = mode
        self.budget_key = budget_key
        self.pattern: re.Pattern[str] | None = None
        if budget_pattern is not None:
            try:
                self.pattern = re.compile(budget_pattern, re.IGNORECASE)
            except re.error as exc:
                raise ConfigError(f"{reward}: budget_pattern is not a valid regex ({exc}): {budget_pattern!r}") from exc
            if "budget" not in self.pattern.groupindex and self.pattern.groups < 1:
                raise ConfigError(
                    f"{reward}: budget_pattern needs a group for the number, (?P<budget>\\d+) or a first (...) group"
                )

    def find(self, batch: Batch) -> list[Budget | str]:
        """Per row a :class:`Budget`, or the status saying why there is none."""
        column = batch.columns.get(self.budget_key) if self.budget_key else None
        out: list[Budget | str] = []
        for i in range(len(batch)):
            value = column[i] if column is not None else None
            if _missing(value):
                out.append(self._from_prompt(batch.prompts[i]))
            else:
                out.append(self._from_value(value, wants_max=None))
        return out

    def _from_prompt(self, prompt: Any) -> Budget | str:
        if self.pattern is None:
            return NO_BUDGET
        found = list(self.pattern.finditer(prompt_text(prompt)))
        if not found:
            return NO_BUDGET
        match = found[-1]
        number = match.group("budget") if "budget" in self.pattern.groupindex else match.group(1)
        wants_max = bool(match.group("max")) if "max" in self.pattern.groupindex else False
        return self._from_value(number, wants_max)

    def _from_value(self, value: Any, wants_max: bool | None) -> Budget | str:
        if isinstance(value, bool):
            return INVALID_BUDGET
        try:
            number = float(value)
        except (TypeError, ValueError):
            return INVALID_BUDGET
        if not math.isfinite(number) or number != int(number) or number == 0:
            return INVALID_BUDGET
        if int(number) == L1_NO_BUDGET:
            return NO_BUDGET
        is_max = number < 0 if wants_max is None else wants_max
        mode = self.mode if self.mode != "auto" else ("max" if is_max else "exact")
        return Budget(abs(int(number)), mode)


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or value == ""


class LengthBudget(Reward):
    """L1's length-controlled reward: the wrapped ``correctness`` reward traded against the row's budget.

    ``mode: exact`` (L1-Exact) is ``correct - alpha * |budget - length|``; ``mode: max`` (L1-Max) is
    ``correct * clip(alpha * (budget - length) + delta, 0, 1)``; ``auto`` picks per row from the budget
    (L1's ``-N`` or "Think for maximum N tokens." for max). Rows without a budget, or whose correctness
    did not apply (no reference, an infrastructure failure), get None.
    """

    def __init__(
        self,
        mode: Literal["exact", "max", "auto"] = "exact",
        alpha: float = 0.0003,
        delta: float = 0.5,
        correctness: str | Mapping[str, Any] = "math_accuracy",
        budget_key: str | None = "num_tokens",
        budget_pattern: str | None = DEFAULT_BUDGET_PATTERN,
        unit: Literal["auto", "tokens", "words"] = "auto",
        count: Literal["completion", "thinking"] = "completion",
        tokenizer: str | None = None,
    ) -> None:
        super().__init__("length_budget")
        if not alpha >= 0:
            raise ConfigError(f"length_budget: alpha must be >= 0, got {alpha!r}")
        self.alpha = float(alpha)
        self.delta = float(delta)
        self.budgets = BudgetFinder(self.name, mode, budget_key, budget_pattern)
        self.length = BudgetLength(self.name, unit, count, tokenizer)
        self.correctness = correctness_term(self.name, correctness)

    def all_terms(self) -> list[Term]:
        """The correctness term, so tools that walk a reward's verifiers (the audit, ``--reference-key``) see it."""
        return [Term(self.correctness.name, self.correctness)]

    def value(self, correct: float, budget: Budget, used: int) -> float:
        if budget.mode == "max":
            return l1_max(correct, budget.tokens, used, self.alpha, self.delta)
        return l1_exact(correct, budget.tokens, used, self.alpha)

    def score(self, batch: Batch) -> Scored:
        n = len(batch)
        budgets = self.budgets.find(batch)
        rows = [i for i, b in enumerate(budgets) if isinstance(b, Budget)]
        values: list[float | None] = [None] * n
        statuses: list[str | None] = [b if isinstance(b, str) else None for b in budgets]
        extracted: list[str | None] = [None] * n
        if rows:
            sub = batch.subset(rows)
            correct, judged, answers = judge(self.correctness, sub, self.correctness.name)
            lengths = self.length.lengths(sub)
            for j, i in enumerate(rows):
                statuses[i], extracted[i] = judged[j], answers[j]
                budget, value = budgets[i], correct[j]
                if value is not None and isinstance(budget, Budget):
                    values[i] = self.value(value, budget, lengths[j])
        return Scored.leaf(self.name, values, statuses, extracted)

    def close(self) -> None:
        self.correctness.close()
