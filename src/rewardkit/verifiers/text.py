"""The text toolkit every verifier and reward reads completions with: the text of a completion (a string or
chat messages), the region after reasoning that can hold an answer, and LaTeX-aware brace matching."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

THINK_CLOSE = "</think>"
# A brace, or a backslash with the character it escapes (skipped whole, so ``\\{`` is no brace).
_BRACE_OR_ESCAPE = re.compile(r"\\.|[{}]", re.DOTALL)


def completion_text(completion: Any, *, turns: Literal["all", "final"] = "all", reasoning: bool = True) -> str:
    """The text of a completion given as a string or as chat messages.

    Of chat messages only the assistant turns count (a bare string in the list counts as one). ``turns="all"``
    joins them with newlines; ``turns="final"`` keeps the last one that has text (the answer the model ended
    on, not a draft in an earlier turn). With ``reasoning`` a message's ``reasoning_content`` (or
    ``reasoning``) is rendered as a leading ``<think>...</think>`` block, so a chat completion reads like the
    plain string a model without a reasoning parser would have produced; without it, only ``content`` counts
    (what the verifiers read). Content given as parts keeps its ``text`` parts.
    """
    if completion is None:
        return ""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Mapping):
        completion = [completion]
    if not isinstance(completion, Sequence):
        return str(completion)
    parts: list[str] = []
    for message in completion:
        if isinstance(message, str):
            parts.append(message)
            continue
        if not isinstance(message, Mapping) or message.get("role", "assistant") != "assistant":
            continue
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(
                str(p.get("text", "")) for p in content if isinstance(p, Mapping) and p.get("type") == "text"
            )
        thought = (message.get("reasoning_content") or message.get("reasoning")) if reasoning else None
        text = f"<think>{thought}</think>" if thought else ""
        text += str(content) if content else ""
        if text:
            parts.append(text)
    return "\n".join(parts if turns == "all" else parts[-1:])


def answer_region(text: str) -> str:
    """The part of a completion that can hold the answer: after the last ``</think>`` when the block is
    closed, the whole text when it is not (the model ran out of tokens mid-thought)."""
    cut = text.rfind(THINK_CLOSE)
    return text[cut + len(THINK_CLOSE) :] if cut >= 0 else text


def brace_pairs(text: str) -> dict[int, int]:
    """The index of the matching ``}`` of every ``{`` that closes, in one linear pass. LaTeX-aware: a
    backslash escapes the character after it, so ``\\{`` and ``\\}`` are never counted (nor is ``\\\\``'s second
    backslash taken as an escape). Braces left open are left out."""
    pairs: dict[int, int] = {}
    stack: list[int] = []
    for m in _BRACE_OR_ESCAPE.finditer(text):
        if m.group() == "{":
            stack.append(m.start())
        elif m.group() == "}" and stack:
            pairs[stack.pop()] = m.start()
    return pairs
