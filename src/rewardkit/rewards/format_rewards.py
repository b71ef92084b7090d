"""Rewards on the completion's form: a required tag structure, and n-gram repetition."""

from __future__ import annotations

import re
from collections.abc import Hashable, Sequence
from typing import Literal

from rewardkit._errors import ConfigError
from rewardkit.rewards.base import Reward, Scored
from rewardkit.rewards.inputs import Batch
from rewardkit.rewards.tokens import CompletionTokens

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


def ngrams(units: Sequence[Hashable], n: int) -> list[tuple[Hashable, ...]]:
    return [tuple(units[i : i + n]) for i in range(len(units) - n + 1)]


REPETITION_UNITS = ("auto", "tokens", "words")


class RepetitionPenalty(Reward):
    """``max_penalty * (1 - distinct n-grams / n-grams)``: 0 for no repetition (TRL's repetition penalty).

    ``max_penalty`` is negative (default -1.0): a completion that repeats one n-gram throughout tends to it.
    ``unit``: ``tokens`` counts n-grams of token ids, as TRL does (its ``completion_ids``, else ``tokenizer``'s);
    ``words`` of lower-cased whitespace-separated words, the same value in training and offline; ``auto``
    (default) is tokens when either source exists, else words. Fewer than ``ngram_size`` units give 0.
    """

    def __init__(
        self, ngram_size: int = 3, max_penalty: float = -1.0, unit: str = "auto", tokenizer: str | None = None
    ) -> None:
        super().__init__("repetition_penalty")
        if not isinstance(ngram_size, int) or isinstance(ngram_size, bool) or ngram_size < 1:
            raise ConfigError(f"repetition_penalty: ngram_size must be an integer >= 1, got {ngram_size!r}")
        if not isinstance(max_penalty, (int, float)) or max_penalty > 0:
            raise ConfigError(f"repetition_penalty: max_penalty must be a number <= 0, got {max_penalty!r}")
        if unit not in REPETITION_UNITS:
            raise ConfigError(f"repetition_penalty: unit must be one of {', '.join(REPETITION_UNITS)}, got {unit!r}")
        self.ngram_size = ngram_size
        self.max_penalty = float(max_penalty)
        self.unit = unit
        self.tokens = CompletionTokens(self.name, tokenizer, text_unit="words")

    def penalty(self, units: Sequence[Hashable]) -> float:
        grams = ngrams(units, self.ngram_size)
        if not grams:
            return 0.0
        return self.max_penalty * (1.0 - len(set(grams)) / len(grams)) + 0.0

    def score(self, batch: Batch) -> Scored:
        if self.unit == "words" or (self.unit == "auto" and not self.tokens.available(batch)):
            sequences: Sequence[Sequence[Hashable]] = [t.lower().split() for t in batch.texts]
        else:
            sequences = self.tokens.ids(batch)
        return Scored.leaf(self.name, [self.penalty(units) for units in sequences])


class ThinkFormat(Reward):
    """R1/Qwen3 reasoning format, TRL's ``think_format_reward`` by default: a ``<think>...</think>`` block first.

    By default (as TRL): 1.0 when the completion (after ``prefix``) starts with ``<think>``, has no second
    ``<think>``, and closes the block; anything may follow, including nothing. Stricter, each by name:
    ``require_answer`` (non-blank text after ``</think>``), ``allow_empty_think=False`` (non-blank
    thinking), ``strict_tags`` (exactly one ``</think>`` too); ``allow_leading_whitespace`` accepts
    whitespace before ``<think>``. A chat message's ``reasoning_content`` counts as the think block (see
    ``completion_text``); TRL reads only ``content``.
    """

    def __init__(
        self,
        prefix: str = "",
        allow_empty_think: bool = True,
        require_answer: bool = False,
        strict_tags: bool = False,
        allow_leading_whitespace: bool = False,
    ) -> None:
        super().__init__("think_format")
        self.prefix = prefix
        self.allow_empty_think = bool(allow_empty_think)
        self.require_answer = bool(require_answer)
        self.strict_tags = bool(strict_tags)
        self.allow_leading_whitespace = bool(allow_leading_whitespace)

    def value(self, text: str) -> float:
        text = self.prefix + text
        if self.allow_leading_whitespace:
            text = text.lstrip()
        if not text.startswith("<think>"):
            return 0.0
        rest = text[len("<think>") :]
        thinking, closed, answer = rest.partition("</think>")
        if "<think>" in rest or not closed:
            return 0.0
        if self.strict_tags and "</think>" in answer:
            return 0.0
        if self.require_answer and not answer.strip():
            return 0.0
        if not self.allow_empty_think and not thinking.strip():
            return 0.0
        return 1.0

    def score(self, batch: Batch) -> Scored:
        return Scored.leaf(self.name, [self.value(t) for t in batch.texts])


_STEP_LINE = re.compile(
    r"^[ \t]*(?:(?:step[ \t]+\d+[ \t]*[:.)]|(?:first|second|third|next|then|finally),)[ \t]*\S"
    r"|(?:\d+[.)]|[-*\u2022])[ \t]+\S)",
    re.IGNORECASE | re.MULTILINE,
)


class ReasoningSteps(Reward):
    """Rewards visible step-by-step reasoning (open-r1's ``reasoning_steps``): ``min(1, steps / min_steps)``.

    A step is a line that starts with ``Step N:``, a numbered item (``1.``, ``2)``), a bullet (``-``, ``*``,
    ``•``) or ``First,``/``Second,``/``Third,``/``Next,``/``Then,``/``Finally,`` and has text after it. Unlike
    open-r1's regex, markers are counted once per line and only at a line start, so ``Step 1: Step 2: Step 3:``
    on one line is one step. ``region: think`` counts only inside the ``<think>`` block.
    """

    def __init__(self, min_steps: int = 3, region: Literal["all", "think"] = "all") -> None:
        super().__init__("reasoning_steps")
        if isinstance(min_steps, bool) or not isinstance(min_steps, int) or min_steps < 1:
            raise ConfigError(f"reasoning_steps: min_steps must be an integer >= 1, got {min_steps!r}")
        if region not in ("all", "think"):
            raise ConfigError(f"reasoning_steps: region must be 'all' or 'think', got {region!r}")
        self.min_steps = min_steps
        self.region = region

    def steps(self, text: str) -> int:
        if self.region == "think":
            match = re.search(r"<think>(.*?)(?:</think>|$)", text, re.DOTALL)
            text = match.group(1) if match else ""
        return len(_STEP_LINE.findall(re.sub(r"</?think>", "\n", text)))

    def score(self, batch: Batch) -> Scored:
        return Scored.leaf(self.name, [min(1.0, self.steps(t) / self.min_steps) for t in batch.texts])


class TagCount(Reward):
    """Partial credit for the tag skeleton (open-r1's ``tag_count``): each of ``2 * len(tags)`` checks earns
    an equal share.

    Per tag: its opening tag appears exactly once, followed by a newline; its closing tag appears exactly
    once, preceded by a newline (``newlines: false`` drops the newline requirements). With
    ``require_content`` (default), a tag whose opening and closing tags enclose only whitespace earns nothing,
    so ``<think>\\n\\n</think>`` is not paid for (open-r1 pays it).
    """

    def __init__(
        self, tags: Sequence[str] = ("think", "answer"), newlines: bool = True, require_content: bool = True
    ) -> None:
        super().__init__("tag_count")
        if isinstance(tags, str) or not tags or not all(isinstance(t, str) and _TAG_NAME.match(t) for t in tags):
            raise ConfigError(
                f"tag_count: tags must be a non-empty list of tag names like ['think', 'answer'], got {tags!r}"
            )
        self.tags = list(tags)
        self.newlines = bool(newlines)
        self.require_content = bool(require_content)

    def value(self, text: str) -> float:
        earned = 0
        for tag in self.tags:
            opening, closing = f"<{tag}>", f"</{tag}>"
            open_ok = text.count(opening) == 1 and (not self.newlines or f"{opening}\n" in text)
            close_ok = text.count(closing) == 1 and (not self.newlines or f"\n{closing}" in text)
            if self.require_content and open_ok and close_ok:
                start, end = text.find(opening) + len(opening), text.find(closing)
                if end < start or not text[start:end].strip():
                    continue
            earned += int(open_ok) + int(close_ok)
        return earned / (2 * len(self.tags))

    def score(self, batch: Batch) -> Scored:
        return Scored.leaf(self.name, [self.value(t) for t in batch.texts])
