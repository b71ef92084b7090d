"""An adaptive per-prompt length reward (Kimi k1.5's length reward): lengths judged within a prompt's group.

Only correct when one call holds every completion of a prompt: it sets ``whole_groups``, which TRL's reward
call, in-process scoring, the Ray executor and the service keep (rewards/groups.py). A group found cut short
gets None with a status, not a value from a partial group.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from rewardkit._errors import ConfigError
from rewardkit.rewards.base import Reward, Scored
from rewardkit.rewards.combinators import Term
from rewardkit.rewards.groups import prompt_groups
from rewardkit.rewards.inputs import Batch
from rewardkit.rewards.length_count import BudgetLength, correctness_term, judge

INCOMPLETE_GROUP, SINGLE_COMPLETION = "incomplete_group", "single_completion"


def kimi_length(length: float, shortest: float, longest: float, correct: bool) -> float:
    """Kimi k1.5: ``lam = 0.5 - (len - min) / (max - min)``; ``lam`` when correct, ``min(0, lam)`` when wrong.

    A group whose completions are all as long as each other prefers none of them: 0.0.
    """
    if longest == shortest:
        return 0.0
    lam = 0.5 - (length - shortest) / (longest - shortest)
    return lam if correct else min(0.0, lam)


def group_rows(batch: Batch, group_key: str | None) -> list[list[int]]:
    """The rows of each prompt, in first-seen order: rows with an identical prompt (and ``group_key`` value)."""
    if group_key and group_key not in batch.columns:
        raise ConfigError(
            f"group_length: group_key {group_key!r} is not a column of the batch; it has: "
            f"{', '.join(sorted(batch.columns)) or '(none)'}"
        )
    return prompt_groups(batch, (group_key,))


class GroupLength(Reward):
    """Kimi k1.5's length reward over each prompt's group (see :func:`kimi_length`).

    Correct completions (the ``correctness`` term's value >= ``threshold``) earn up to 0.5 for being the
    group's shortest and down to -0.5 for its longest; wrong ones only lose, and only for being longer than
    the group's midpoint. Add it to the correctness term in a spec (Kimi weights it in; ``weight`` does).

    ``num_generations``, when given, is the size every group must have (a multiple of it: the same prompt
    twice in a call): a smaller group was cut off from its rest and gets None with status
    ``incomplete_group``. Without it, a group of one gets None with status ``single_completion``.
    """

    whole_groups = True

    def __init__(
        self,
        correctness: str | Mapping[str, Any] = "math_accuracy",
        threshold: float = 1.0,
        num_generations: int | None = None,
        group_key: str | None = None,
        unit: Literal["auto", "tokens", "words"] = "auto",
        count: Literal["completion", "thinking"] = "completion",
        tokenizer: str | None = None,
    ) -> None:
        super().__init__("group_length")
        if num_generations is not None and num_generations < 1:
            raise ConfigError(f"group_length: num_generations must be >= 1, got {num_generations!r}")
        self.threshold = float(threshold)
        self.num_generations = num_generations
        self.group_key = group_key
        self.length = BudgetLength(self.name, unit, count, tokenizer)
        self.correctness = correctness_term(self.name, correctness)

    def all_terms(self) -> list[Term]:
        return [Term(self.correctness.name, self.correctness)]

    def cut_short(self, size: int) -> str | None:
        """The status of a group of ``size`` rows that cannot be compared as a whole, else None."""
        if self.num_generations is not None:
            return INCOMPLETE_GROUP if size % self.num_generations else None
        return SINGLE_COMPLETION if size == 1 else None

    def score(self, batch: Batch) -> Scored:
        n = len(batch)
        correct, statuses, extracted = judge(self.correctness, batch, self.correctness.name)
        lengths = self.length.lengths(batch)
        values: list[float | None] = [None] * n
        for rows in group_rows(batch, self.group_key):
            problem = self.cut_short(len(rows))
            if problem is not None:
                for i in rows:
                    statuses[i] = problem
                continue
            # every completion's length counts towards the group's range, judged or not
            shortest, longest = min(lengths[i] for i in rows), max(lengths[i] for i in rows)
            for i in rows:
                value = correct[i]
                if value is not None:
                    values[i] = kimi_length(lengths[i], shortest, longest, value >= self.threshold)
        return Scored.leaf(self.name, values, statuses, extracted)

    def close(self) -> None:
        self.correctness.close()
