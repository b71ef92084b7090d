"""The reference side of the math verifier: reduce what a dataset stores to the answer it holds.

Datasets store a bare answer (``72``, ``\\frac{1}{2}``, ``$x=3$``), or more than an answer: MATH's
``solution`` column (a worked solution with ``\\boxed{}``), GSM8K's rationale ending ``#### 72``, or several
boxes (``\\boxed{1} and \\boxed{-2}``: one answer with several values). Those are reduced here with the same
rules the completion's extraction uses; a bare answer is kept as it is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from rewardkit.verifiers.base import is_missing_reference
from rewardkit.verifiers.math_answer.extract import STRICT, extract_answer, final_boxes

_GSM8K = re.compile(r"^[ \t]*####[ \t]*(\S.*)$", re.MULTILINE)
_STATEMENT = re.compile(r"final[ \t]+answer|the[ \t]+answer[ \t]+is|^[ \t]*answer[ \t]*:", re.IGNORECASE | re.MULTILINE)
_BARE_ANSWER_LENGTH = 80


def reference_text(reference: Any) -> str | None:
    """The reference's answer as text, or None when it holds none (not the model's fault)."""
    if isinstance(reference, bool) or is_missing_reference(reference):
        return None  # None, "", NaN (pandas' missing value), pd.NA: no answer to judge against
    if isinstance(reference, Sequence) and not isinstance(reference, str):
        parts = [r for r in reference if not is_missing_reference(r)]
        if not parts:
            return None
        reference = ", ".join(str(r) for r in parts)
    text = str(reference).strip()
    if not text:
        return None
    gsm8k = _GSM8K.findall(text)
    if gsm8k:
        return gsm8k[-1].strip() or None
    if "\\boxed" in text or "\\fbox" in text:
        boxes = _distinct(final_boxes(text))
        if boxes:
            return ", ".join(boxes)
    if len(text) > _BARE_ANSWER_LENGTH and _STATEMENT.search(text):
        found = extract_answer(text, STRICT)
        if found is not None:
            return found.text
    return text


def _distinct(values: list[str]) -> list[str]:
    seen: dict[str, str] = {}
    for value in values:
        seen.setdefault(re.sub(r"\s+", "", value), value)
    return list(seen.values())
