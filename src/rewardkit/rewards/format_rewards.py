"""Rewards on the completion's form: a required tag structure, and n-gram repetition."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rewardkit._errors import ConfigError
from rewardkit.rewards.base import Reward, Scored
from rewardkit.rewards.batch import Batch

_TAG_NAME = re.compile(r"^[A-Za-z_][\w.-]*$")


class TagFormat(Reward):
    """Does the completion follow ``<t1>...</t1><t2>...</t2>...`` (whitespace allowed between blocks)?

    Strict (default): 1.0 when every tag appears exactly once, in order, non-empty, with nothing but
    whitespace before the first block and after the last; else 0.0. Partial: each well-formed tag (one
    opening and one closing tag, in that order, non-blank content, after the previous credited tag) earns
    ``1/len(tags)``; a tag earns nothing when non-blank text follows its closing tag and no later tag
    opens after it (no credit for text after the final closing tag). ``prefix`` is
    prepended before checking, for chat templates that end the prompt with an opening ``<think>``.
    """

    def __init__(self, tags: Sequence[str] = ("think", "answer"), strict: bool = True, prefix: str = "") -> None:
        super().__init__("tag_format")
        if isinstance(tags, str) or not tags or not all(isinstance(t, str) and _TAG_NAME.match(t) for t in tags):
            raise ConfigError(
                f"tag_format: tags must be a non-empty list of tag names like ['think', 'answer'], got {tags!r}"
            )
        if len(set(tags)) != len(tags):
            raise ConfigError(f"tag_format: tags must be distinct, got {list(tags)!r}")
        self.tags = list(tags)
        self.strict = bool(strict)
        self.prefix = prefix
        body = r"\s*".join(rf"<{re.escape(t)}>(.*?)</{re.escape(t)}>" for t in self.tags)
        self._full = re.compile(rf"\s*{body}\s*", re.DOTALL)

    def score(self, batch: Batch) -> Scored:
        score = self.strict_score if self.strict else self.partial_score
        return Scored.leaf(self.name, [score(self.prefix + text) for text in batch.texts])

    def _counts_once(self, text: str, tag: str) -> bool:
        return text.count(f"<{tag}>") == 1 and text.count(f"</{tag}>") == 1

    def strict_score(self, text: str) -> float:
        if not all(self._counts_once(text, t) for t in self.tags):
            return 0.0
        match = self._full.fullmatch(text)
        if match is None or any(not group.strip() for group in match.groups()):
            return 0.0
        return 1.0

    def partial_score(self, text: str) -> float:
        earned, last_end = 0, 0
        for i, tag in enumerate(self.tags):
            if not self._counts_once(text, tag):
                continue
            start, end = text.find(f"<{tag}>"), text.find(f"</{tag}>")
            if end < start or start < last_end or not text[start + len(tag) + 2 : end].strip():
                continue
            close_end = end + len(tag) + 3
            after = text[close_end:]
            if after.strip() and not any(f"<{t}>" in after for t in self.tags[i + 1 :]):
                continue
            earned, last_end = earned + 1, close_end
        return earned / len(self.tags)


def ngrams(words: list[str], n: int) -> list[tuple[str, ...]]:
    return [tuple(words[i : i + n]) for i in range(len(words) - n + 1)]


class RepetitionPenalty(Reward):
    """``max_penalty * (1 - distinct n-grams / n-grams)`` over lower-cased words: 0 for no repetition.

    ``max_penalty`` is negative (default -1.0): a completion that repeats one n-gram throughout tends to it.
    Completions shorter than ``ngram_size`` words get 0.
    """

    def __init__(self, ngram_size: int = 3, max_penalty: float = -1.0) -> None:
        super().__init__("repetition_penalty")
        if not isinstance(ngram_size, int) or isinstance(ngram_size, bool) or ngram_size < 1:
            raise ConfigError(f"repetition_penalty: ngram_size must be an integer >= 1, got {ngram_size!r}")
        if not isinstance(max_penalty, (int, float)) or max_penalty > 0:
            raise ConfigError(f"repetition_penalty: max_penalty must be a number <= 0, got {max_penalty!r}")
        self.ngram_size = ngram_size
        self.max_penalty = float(max_penalty)

    def penalty(self, text: str) -> float:
        grams = ngrams(text.lower().split(), self.ngram_size)
        if not grams:
            return 0.0
        return self.max_penalty * (1.0 - len(set(grams)) / len(grams)) + 0.0

    def score(self, batch: Batch) -> Scored:
        return Scored.leaf(self.name, [self.penalty(t) for t in batch.texts])
