"""Length shaping: DAPO's soft overlong penalty and cosine length scaling (correct vs wrong answers)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from rewardkit._errors import ConfigError
from rewardkit.rewards.base import Reward, Scored
from rewardkit.rewards.inputs import Batch
from rewardkit.rewards.tokens import CompletionTokens
from rewardkit.rewards.verifier_rewards import DEFAULT_REFERENCE_KEYS, VerifierReward

UNITS = ("auto", "tokens", "chars")


class CompletionLength:
    """Measures completions in tokens or characters.

    ``unit="tokens"`` counts TRL's ``completion_ids`` when the call has them, else tokenizes with
    ``tokenizer`` (see :class:`CompletionTokens`). ``"chars"`` counts characters of the completion text.
    ``"auto"`` is tokens when either source exists, else chars.
    """

    def __init__(self, reward: str, unit: str, tokenizer: str | None) -> None:
        if unit not in UNITS:
            raise ConfigError(f"{reward}: unit must be one of {', '.join(UNITS)}, got {unit!r}")
        self.unit = unit
        self.tokens = CompletionTokens(reward, tokenizer, text_unit="chars")

    def lengths(self, batch: Batch) -> list[int]:
        if self.unit == "chars" or (self.unit == "auto" and not self.tokens.available(batch)):
            return [len(t) for t in batch.texts]
        return [len(ids) for ids in self.tokens.ids(batch)]


def _number(reward: str, field: str, value: Any, minimum: float | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{reward}: {field} must be a number, got {value!r}")
    if minimum is not None and value < minimum:
        raise ConfigError(f"{reward}: {field} must be >= {minimum}, got {value!r}")
    return float(value)


def soft_overlong_penalty(length: float, max_length: float, cache: float) -> float:
    """DAPO: 0 up to ``max_length - cache``, then linear down to -1 at ``max_length``, -1 beyond."""
    start = max_length - cache
    if length <= start:
        return 0.0
    if length >= max_length:
        return -1.0
    return (start - length) / cache


class SoftOverlong(Reward):
    """DAPO's soft overlong punishment (see :func:`soft_overlong_penalty`), TRL's ``get_soft_overlong_punishment``.

    ``max_length`` and ``cache`` are TRL's ``max_completion_len`` and ``soft_punish_cache``; ``cache: 0``
    is a hard limit.
    """

    def __init__(
        self, max_length: int = 1024, cache: int = 256, unit: str = "auto", tokenizer: str | None = None
    ) -> None:
        super().__init__("soft_overlong")
        self.max_length = _number(self.name, "max_length", max_length, 1)
        self.cache = _number(self.name, "cache", cache, 0)  # 0, as in TRL: -1 past max_length, no soft zone
        if self.cache > self.max_length:
            raise ConfigError(f"soft_overlong: cache ({cache}) must not exceed max_length ({max_length})")
        self.length = CompletionLength(self.name, unit, tokenizer)

    def score(self, batch: Batch) -> Scored:
        return Scored.leaf(
            self.name, [soft_overlong_penalty(n, self.max_length, self.cache) for n in self.length.lengths(batch)]
        )


def cosine_scaled(length: float, max_length: float, at_zero: float, at_max: float) -> float:
    """A half cosine from ``at_zero`` (length 0) to ``at_max`` (length >= max_length)."""
    progress = min(max(length / max_length, 0.0), 1.0)
    return at_max + 0.5 * (at_zero - at_max) * (1.0 + math.cos(math.pi * progress))


class CosineLength(Reward):
    """Cosine length scaling (Yeo et al., 2025): short correct answers earn most, short wrong ones lose most.

    Correct: from ``correct_short`` at length 0 to ``correct_long`` at ``max_length``; wrong: from
    ``wrong_short`` to ``wrong_long``. Correctness comes from ``verifier`` against the row's reference;
    rows without a reference get None.
    """

    def __init__(
        self,
        max_length: int = 1024,
        correct_short: float = 1.0,
        correct_long: float = 0.5,
        wrong_short: float = -1.0,
        wrong_long: float = -0.5,
        verifier: str = "math",
        verifier_params: Mapping[str, Any] | None = None,
        reference_key: str | Sequence[str] = DEFAULT_REFERENCE_KEYS,
        unit: str = "auto",
        tokenizer: str | None = None,
    ) -> None:
        super().__init__("cosine_length")
        self.max_length = _number(self.name, "max_length", max_length, 1)
        self.ends = {
            True: (
                _number(self.name, "correct_short", correct_short),
                _number(self.name, "correct_long", correct_long),
            ),
            False: (_number(self.name, "wrong_short", wrong_short), _number(self.name, "wrong_long", wrong_long)),
        }
        self.length = CompletionLength(self.name, unit, tokenizer)
        self.judge = VerifierReward(
            self.name, verifier, verifier_params=verifier_params, reference_key=reference_key, value="correct"
        )

    def score(self, batch: Batch) -> Scored:
        judged = self.judge.score(batch)
        lengths = self.length.lengths(batch)
        values: list[float | None] = []
        for correct, n in zip(judged.values, lengths, strict=True):
            if correct is None:
                values.append(None)
                continue
            short, long_ = self.ends[correct >= 1.0]
            values.append(cosine_scaled(n, self.max_length, short, long_))
        judge = self.judge.name  # this reward's own name may have changed since (a spec's ``name``)
        return Scored.leaf(self.name, values, judged.statuses[judge], judged.extracted[judge])

    def close(self) -> None:
        self.judge.close()
