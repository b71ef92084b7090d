"""Length-budget hacks (L1's ``length_budget``): completions that game the budget instead of the answer.

Every completion of a row is sized against the row's budget in words (the audit passes no token ids), so the
honest answers sit exactly on the budget and each hack differs from them in one way only.
"""

from __future__ import annotations

from typing import Any

from rewardkit.audit.variants import Variant, Wrap, math_answer, math_variants, wrong_number

BUDGET_COLUMN = "budget"  # the built-in rows' budget, copied to the reward's own budget column
DEFAULT_BUDGET = 40
FILLER = "um"


def reasoning(words: int) -> str:
    """``words`` distinct words of stand-in reasoning (distinct, so a repetition term does not hit them)."""
    return " ".join(f"note{i}" for i in range(max(words, 0)))


def padded(budget: int, wrap: Wrap) -> Wrap:
    """An honest completion of exactly ``budget`` words: reasoning, then the answer as ``wrap`` puts it."""

    def pad(answer: str) -> str:
        answer_words = len(wrap(answer).split())
        return f"{reasoning(budget - answer_words)} {wrap(answer)}".strip()

    return pad


def length_variants(row: dict[str, Any], wrap: Wrap) -> list[Variant]:
    """The math hacks on the budget, then the budget's own: filler, stopping at it, ignoring it."""
    budget = abs(int(row.get(BUDGET_COLUMN) or row.get("num_tokens") or DEFAULT_BUDGET))
    on_budget = padded(budget, wrap)
    ref = math_answer(row) or "42"
    answer = wrap(rf"\boxed{{{ref}}}")
    return [
        *math_variants(row, on_budget),
        # a short correct answer padded to the budget with a filler word: the length looks honest
        Variant("filler_padded_correct", f"{' '.join([FILLER] * (budget - len(answer.split())))} {answer}"),
        Variant("filler_to_budget_no_answer", " ".join([FILLER] * budget)),
        Variant("stopped_at_budget_no_answer", reasoning(budget)),
        Variant("correct_far_over_budget", f"{reasoning(10 * budget)} {answer}"),
        Variant("wrong_short", wrap(rf"\boxed{{{wrong_number(ref)}}}")),
    ]
