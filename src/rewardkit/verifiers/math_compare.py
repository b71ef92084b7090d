"""Stage two of the math verifier: judge an extracted answer against a reference.

A reference may hold several values (``1, -2``, ``x=1 \\text{ or } x=-2``); the answer must then give the
same values (in any order). When one value is expected, an answer with several different values is a hedge
and earns nothing, even if one of them is right. Plain numbers are compared with a relative tolerance;
everything else (expressions, sets, intervals, tuples, matrices, equations) goes through math-verify.
Nothing here guards time: the caller runs it in a killable worker.
"""

from __future__ import annotations

import cmath
import logging
import re
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from rewardkit.verifiers.verdict import HEDGED, INVALID_REFERENCE, OK, PARSE_ERROR

_DELIMS = (("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]"))
_WORD_SEPARATORS = re.compile(
    r"\\(?:text|textrm|mbox|mathrm)\s*\{\s*(or|and)\s*\}|\\quad|\\qquad|\s+(?:or|and)\s+", re.IGNORECASE
)
_ASSIGNMENT = re.compile(r"^\s*\\?[a-zA-Z](?:_\{?\w+\}?)?\s*=\s*(?=\S)")
_THOUSANDS = re.compile(r"^-?\d{1,3}(?:,\d{3})+(?:\.\d+)?$")
_SPACING = re.compile(r"\\[,;:! ]|\\(?:displaystyle|left|right)\b|\s+")
_DEGREES = re.compile(r"\^\s*\{?\\circ\}?|°|\\degree")
_TEXT_WRAP = re.compile(r"\\(?:text|textbf|mathrm|mathbf|textrm|mbox|operatorname)\s*\{([^{}]*)\}")
_NUMBER = re.compile(r"^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$")
_LATEX_FRAC = re.compile(r"^([-+]?)\\[dt]?frac\{?\s*(\d+)\s*\}?\{?\s*(\d+)\s*\}?$")
_MIXED = re.compile(r"^([-+]?)(\d+)\s*(?:\\[dt]?frac\{(\d+)\}\{(\d+)\}|\s(\d+)/(\d+))$")
_SCI = re.compile(r"^([-+]?(?:\d+\.?\d*|\.\d+))\s*(?:\\times|\\cdot|\*|x)\s*10\s*\^\s*\{?\s*([-+]?\d{1,3})\s*\}?$")
_POW10 = re.compile(r"^10\s*\^\s*\{?\s*([-+]?\d{1,3})\s*\}?$")
_PERCENT = re.compile(r"(?:\\%|%)$")

RELATIVE_TOLERANCE = 1e-6

# math-verify warns once per process that its signal timeouts are off: our workers enforce the deadline.
logging.getLogger("math_verify").setLevel(logging.ERROR)


@dataclass(frozen=True)
class Judgement:
    correct: bool
    status: str
    reason: str


def strip_delimiters(text: str) -> str:
    text = text.strip()
    changed = True
    while changed:
        changed = False
        for left, right in _DELIMS:
            if text.startswith(left) and text.endswith(right) and len(text) >= len(left) + len(right):
                text = text[len(left):len(text) - len(right)].strip()
                changed = True
    return text.rstrip(".").strip()


def normalize(text: str) -> str:
    """Surface clean-up that never changes the value: delimiters, spacing, degree signs, ``{,}``."""
    text = strip_delimiters(text)
    text = text.replace("{,}", "").replace("\\!", "")
    text = _DEGREES.sub("", text)
    text = _SPACING.sub(" ", text).strip()
    return text


def _top_level_split(text: str) -> list[str]:
    parts, depth, start, i = [], 0, 0, 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and text.startswith("\\{", i):
            depth += 1
            i += 2
            continue
        if ch == "\\" and text.startswith("\\}", i):
            depth -= 1
            i += 2
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch in ",;" and depth == 0:
            parts.append(text[start:i])
            start = i + 1
        i += 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _unwrap_set(text: str) -> str:
    """``\\{1, 2\\}`` → ``1, 2`` when the braces enclose the whole text."""
    if text.startswith("\\{") and text.endswith("\\}") and len(_top_level_split(text)) == 1:
        inner = text[2:-2]
        if inner.count("\\{") == inner.count("\\}"):
            return inner
    return text


def split_values(text: str) -> list[str]:
    """The separate values an answer or reference states, assignments (``x=``) removed."""
    text = normalize(text)
    if _THOUSANDS.match(text.replace(" ", "")):
        return [text.replace(",", "").replace(" ", "")]
    text = _unwrap_set(_WORD_SEPARATORS.sub(",", text))
    values = []
    for part in _top_level_split(text):
        part = _ASSIGNMENT.sub("", part).strip()
        if part:
            values.append(part)
    return values


def _to_fraction(text: str) -> Fraction | None:
    """A plain number written in any common way, exactly; None for anything else (never evaluates powers)."""
    mixed = _MIXED.match(re.sub(r"\s+", " ", text.strip()).replace("\\dfrac", "\\frac"))
    text = text.replace(" ", "").replace("{,}", "")
    if _THOUSANDS.match(text):
        text = text.replace(",", "")
    percent = bool(_PERCENT.search(text))
    if percent:
        text = _PERCENT.sub("", text)
    value: Fraction | None = None
    try:
        if _NUMBER.match(text):
            value = Fraction(text)
        elif m := mixed:
            num, den = (m.group(3), m.group(4)) if m.group(3) else (m.group(5), m.group(6))
            value = (int(m.group(2)) + Fraction(int(num), int(den))) * (-1 if m.group(1) == "-" else 1)
        elif m := _LATEX_FRAC.match(text):
            value = Fraction(int(m.group(2)), int(m.group(3))) * (-1 if m.group(1) == "-" else 1)
        elif m := _SCI.match(text):
            value = Fraction(m.group(1)) * Fraction(10) ** int(m.group(2))
        elif m := _POW10.match(text):
            value = Fraction(10) ** int(m.group(1))
        elif re.match(r"^[-+]?\d+/\d+$", text):
            value = Fraction(text)
    except (ValueError, ZeroDivisionError):
        return None
    if value is not None and percent:
        value /= 100
    return value


def _close(a: Fraction | complex, b: Fraction | complex) -> bool:
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        gap = abs(a - b)
        return gap <= Fraction(RELATIVE_TOLERANCE) * max(abs(a), abs(b)) or gap <= Fraction(1, 10**12)
    x, y = complex(a), complex(b)
    if not (cmath.isfinite(x) and cmath.isfinite(y)):
        return False  # an overflowed evaluation proves nothing, and inf - 3 <= tol * inf
    return abs(x - y) <= RELATIVE_TOLERANCE * max(abs(x), abs(y)) or abs(x - y) <= 1e-12


def _plain_text(text: str) -> str:
    previous = None
    while previous != text:
        previous = text
        text = _TEXT_WRAP.sub(r"\1", text)
    return re.sub(r"[\s{}\\$.]", "", text).lower()


@lru_cache(maxsize=4096)
def _parse(text: str) -> tuple[Any, ...]:
    from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse

    latex = parse(f"${text}$", [LatexExtractionConfig()], parsing_timeout=None)  # type: ignore[arg-type]
    if latex:
        return tuple(latex)
    return tuple(parse(text, [ExprExtractionConfig()], parsing_timeout=None))  # type: ignore[arg-type]


def _as_number(parsed: tuple[Any, ...]) -> complex | None:
    """The numeric value of a parsed constant expression (``\\sqrt{2}``, ``\\pi/2``), else None."""
    if not parsed:
        return None
    expr = parsed[0]
    try:
        if getattr(expr, "is_number", False) and not getattr(expr, "free_symbols", True):
            value = complex(expr.evalf(30))
            return value
    except (TypeError, ValueError, AttributeError, OverflowError):
        return None
    return None


def _set_size(parsed: tuple[Any, ...]) -> int:
    from sympy import FiniteSet

    if parsed and isinstance(parsed[0], FiniteSet):
        return len(parsed[0])
    return 1


def equivalent(gold: str, answer: str) -> bool | None:
    """Whether two single values are equal; None when the answer cannot be parsed at all."""
    g, a = normalize(gold), normalize(answer)
    if g.replace(" ", "") == a.replace(" ", ""):
        return True
    g_num, a_num = _to_fraction(g), _to_fraction(a)
    if g_num is not None and a_num is not None:
        return _close(g_num, a_num)
    from math_verify import verify

    g_parsed, a_parsed = _parse(g), _parse(a)
    if not a_parsed or not g_parsed:
        text_equal = _plain_text(g) == _plain_text(a)
        return True if text_equal else (None if not a_parsed else False)
    g_value, a_value = _as_number(g_parsed), _as_number(a_parsed)
    if g_value is not None and a_value is not None:
        return _close(g_value, a_value)
    if verify(list(g_parsed), list(a_parsed), float_rounding=6, timeout_seconds=None):
        return True
    return _plain_text(g) == _plain_text(a)


def _distinct(values: list[str]) -> list[str]:
    kept: list[str] = []
    for value in values:
        if not any(equivalent(k, value) for k in kept):
            kept.append(value)
    return kept


def judge(answer_values: tuple[str, ...] | list[str], reference: str) -> Judgement:
    """Judge the values an answer states against the reference."""
    gold_values = split_values(reference)
    if not gold_values:
        return Judgement(False, INVALID_REFERENCE, "the reference holds no value")
    values = [v for raw in answer_values for v in split_values(raw)]
    if not values:
        return Judgement(False, PARSE_ERROR, "the answer holds no value")
    if len(gold_values) == 1:
        return _judge_single(gold_values[0], values)
    return _judge_several(reference, gold_values, values)


def _judge_single(gold: str, values: list[str]) -> Judgement:
    if len(values) > 1:
        distinct = _distinct(values)
        if len(distinct) > 1:
            hit = any(equivalent(gold, v) for v in distinct)
            return Judgement(False, HEDGED, f"{len(distinct)} different values given where one is expected"
                             + (" (one of them right)" if hit else ""))
        values = distinct
    answer = values[0]
    result = equivalent(gold, answer)
    if result is None:
        return Judgement(False, PARSE_ERROR, "the answer could not be parsed")
    a_set, g_set = "\\{" in answer, "\\{" in gold
    if not result and a_set and _set_size(_parse(normalize(answer))) > 1 and not g_set:
        return Judgement(False, HEDGED, "a set of several values given where one is expected")
    return Judgement(result, OK, "equivalent" if result else "not equivalent")


def _judge_several(reference: str, gold_values: list[str], values: list[str]) -> Judgement:
    if len(values) == 1:
        whole = equivalent(normalize(reference), values[0])
        if whole is None:
            return Judgement(False, PARSE_ERROR, "the answer could not be parsed")
        return Judgement(whole, OK, "equivalent as a whole" if whole else "not equivalent")
    unmatched = list(values)
    missing = 0
    for gold in gold_values:
        match = next((v for v in unmatched if equivalent(gold, v)), None)
        if match is None:
            missing += 1
        else:
            unmatched.remove(match)
    if missing == 0 and not unmatched:
        return Judgement(True, OK, f"all {len(gold_values)} values match")
    if missing == 0:
        return Judgement(False, HEDGED, f"{len(unmatched)} extra values beyond the {len(gold_values)} expected")
    return Judgement(False, OK, f"{missing} of {len(gold_values)} expected values missing")
