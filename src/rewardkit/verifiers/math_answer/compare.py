"""Stage two of the math verifier: judge an extracted answer against a reference.

A reference may hold several values (``1, -2``, ``x=1 \\text{ or } x=-2``, ``\\pm 3``, ``{1,2,3}``); the answer
must then give the same values (in any order). When one value is expected, an answer with several different
values is a hedge and earns nothing, even if one of them is right. Plain numbers follow the exactness rule
of :mod:`rewardkit.verifiers.math_answer.numeric`; everything else (expressions, sets, intervals, tuples, matrices,
equations) goes through math-verify. Nothing here guards time: the caller runs it in a killable worker.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any, NamedTuple

from rewardkit.verifiers.math_answer.forms import (
    assignments_tuple,
    decimal_comma_reading,
    for_sympy,
    imaginary_unit,
    is_relation,
    is_tuple,
    normalize,
    plain_text,
    rows,
    split_units,
    split_values,
    top_level_split,
    value_of,
)
from rewardkit.verifiers.math_answer.numeric import (
    ROUNDING_PLACES,
    Number,
    approximately,
    parse_number,
    relative_close,
    rounds_to_written,
    same_number,
    same_time,
)
from rewardkit.verifiers.math_answer.units import conversion
from rewardkit.verifiers.verdict import Status

__all__ = ["Judgement", "Task", "agrees", "equivalent", "judge", "judge_task", "normalize", "split_values"]

_EMPTY_FORMS = frozenset({"\\emptyset", "\\{\\}", "{}", "\\varnothing", "∅", "\\{ \\}"})
_NO_SOLUTION = re.compile(
    r"^(?:\\text\{)?\s*(?:there\s+(?:is|are)\s+)?(?:no\s+(?:real\s+|integer\s+|such\s+)?(?:solutions?|roots?|values?|"
    r"numbers?|answer)|none|empty(?:\s+set)?|the\s+empty\s+set|does\s+not\s+exist|dne)\s*\}?\.?$",
    re.IGNORECASE,
)
# math-verify warns once per process that its signal timeouts are off: our workers enforce the deadline.
logging.getLogger("math_verify").setLevel(logging.ERROR)


@dataclass(frozen=True)
class Judgement:
    correct: bool
    status: str
    reason: str


class Task(NamedTuple):
    """One comparison for a worker: the answer's values, the reduced reference, the values the completion writes
    after the answer that must restate it (``(sides, approximate, kind)``), and the rounding rule's places."""

    values: tuple[str, ...]
    reference: str
    later: tuple[tuple[tuple[str, ...], bool, str], ...] = ()
    places: int = ROUNDING_PLACES
    meant: tuple[str, ...] = ()  # the values with a unit written after them, for the restatements


def judge_task(task: Task) -> Judgement:
    """A hedge when a value written after the answer does not restate it; else the answer against the reference."""
    committed = task.meant or task.values
    for sides, approximate, kind in task.later:
        if not any(agrees(committed, side, approximate) for side in sides):
            return Judgement(
                False, Status.HEDGED, f"the answer is followed by a different value ({kind}): {sides[-1]!r}"
            )
    return judge(task.values, task.reference, task.places)


@lru_cache(maxsize=4096)
def _parse(text: str) -> tuple[Any, ...]:
    from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse

    latex = parse(f"${text}$", [LatexExtractionConfig()], parsing_timeout=None)
    if latex:
        return tuple(latex)
    return tuple(parse(text, [ExprExtractionConfig()], parsing_timeout=None))


def _as_number(parsed: tuple[Any, ...]) -> tuple[complex, Fraction | None] | None:
    """The value of a parsed constant (``\\sqrt{2}``, ``\\pi/2``) and its exact value when rational."""
    if not parsed:
        return None
    expr = parsed[0]
    try:
        if getattr(expr, "is_number", False) and not getattr(expr, "free_symbols", True):
            simple = expr.simplify() if not getattr(expr, "is_Rational", False) else expr
            exact = Fraction(int(simple.p), int(simple.q)) if getattr(simple, "is_Rational", False) else None
            return complex(expr.evalf(30)), exact
    except (TypeError, ValueError, AttributeError, OverflowError):
        return None
    return None


def _set_size(parsed: tuple[Any, ...]) -> int:
    from sympy import FiniteSet

    if parsed and isinstance(parsed[0], FiniteSet):
        return len(parsed[0])
    return 1


def _plain(text: str) -> tuple[str, str | None, Number | None]:
    """The value without its label and unit, its unit as written, and its number."""
    core, unit = split_units(value_of(text))
    return core, unit, parse_number(core)


def _empty(text: str) -> bool:
    return text.replace(" ", "") in _EMPTY_FORMS or bool(_NO_SOLUTION.match(text))


def equivalent(gold: str, answer: str, places: int = ROUNDING_PLACES) -> bool | None:
    """Whether two single values are equal; None when the answer cannot be parsed at all. ``places`` is the
    fewest decimal places a decimal answer needs to stand for an exact value it only rounds (numeric.py)."""
    g, a = normalize(gold), normalize(answer)
    if g.replace(" ", "") == a.replace(" ", ""):
        return True
    if _empty(g) or _empty(a):
        return _empty(g) and _empty(a)
    (g_core, g_unit, g_num), (a_core, a_unit, a_num) = _plain(g), _plain(a)
    ratio = conversion(g_unit, a_unit) if g_unit and a_unit else None
    if ratio is False:
        return False  # 120 seconds is not 120 minutes, 12 cm is not 12 s
    if ratio is not None and ratio != 1:
        if a_num is not None:
            a_num = Number(a_num.value * ratio, None, 0, a_num.percent)
        else:
            a_core = f"\\left({a_core}\\right) \\cdot \\frac{{{ratio.numerator}}}{{{ratio.denominator}}}"
    clock = same_time(g_core, a_core)
    if clock is not None:
        return clock
    if g_num is not None and a_num is not None:
        return same_number(g_num, a_num, places)
    g_tuple, a_tuple = _number_tuple(g_core), _number_tuple(a_core)
    if g_tuple is not None and a_tuple is not None:
        return (
            g_tuple[0] == a_tuple[0]
            and len(g_tuple[1]) == len(a_tuple[1])
            and all(same_number(x, y, places) for x, y in zip(g_tuple[1], a_tuple[1], strict=False))
        )
    g_rows, a_rows = rows(g_core), rows(a_core)
    if g_rows is not None or a_rows is not None:
        if g_rows is None or a_rows is None or g_rows[0] != a_rows[0] or len(g_rows[1]) != len(a_rows[1]):
            return False
        return all(equivalent(x, y, places) for x, y in zip(g_rows[1], a_rows[1], strict=False))
    from math_verify import verify

    g_text, a_text = imaginary_unit(for_sympy(g_core), for_sympy(a_core))
    g_parsed, a_parsed = _parse(g_text), _parse(a_text)
    if not a_parsed or not g_parsed:
        text_equal = plain_text(g) == plain_text(a)
        return True if text_equal else (None if not a_parsed else False)
    g_value, a_value = _as_number(g_parsed), _as_number(a_parsed)
    if g_value is not None and a_value is not None:
        return _numbers_close(g_value, a_value, g_num, a_num, places)
    if _solution_sets(g_parsed, a_parsed):
        return True  # x > 3 and (3, \\infty); otherwise math-verify decides
    if verify(list(g_parsed), list(a_parsed), float_rounding=6, timeout_seconds=None):
        return True
    if (is_relation(g) or is_relation(a)) and (g_core != g or a_core != a):
        g_full, a_full = imaginary_unit(for_sympy(g), for_sympy(a))
        if verify(list(_parse(g_full)), list(_parse(a_full)), float_rounding=6, timeout_seconds=None):
            return True
    return plain_text(g) == plain_text(a)


def _number_tuple(text: str) -> tuple[str, list[Number]] | None:
    """``(1, -2]`` or ``(0;0;6)`` as its brackets and plain numbers, else None (settled without sympy)."""
    if len(text) < 2 or text[0] not in "([" or text[-1] not in ")]":
        return None
    inner = text[1:-1]
    if any(ch in inner for ch in "()[]{}"):
        return None
    numbers = [parse_number(p) for p in top_level_split(inner, ",;")]
    if len(numbers) < 2 or any(n is None for n in numbers):
        return None
    return text[0] + text[-1], [n for n in numbers if n is not None]


def _numbers_close(
    g: tuple[complex, Fraction | None],
    a: tuple[complex, Fraction | None],
    g_num: Number | None,
    a_num: Number | None,
    places: int = ROUNDING_PLACES,
) -> bool:
    """Two evaluated constants: rationals exactly, a written decimal by the exactness rule, else a relative
    tolerance."""
    (g_value, g_exact), (a_value, a_exact) = g, a
    # A written number is exact as written (sympy reads ``-2.5`` as a Float): -2.5 is \frac{-5}{2} exactly.
    g_n = g_num or (Number(g_exact) if g_exact is not None else None)
    a_n = a_num or (Number(a_exact) if a_exact is not None else None)
    if g_n is not None and a_n is not None:
        return same_number(g_n, a_n, places)
    for written, other, is_reference in ((a_num, g_value, False), (g_num, a_value, True)):
        if written is not None and written.places is not None:
            return rounds_to_written(written, other, written_is_reference=is_reference, places=places)
    return relative_close(g_value, a_value)


def _solution_sets(g_parsed: tuple[Any, ...], a_parsed: tuple[Any, ...]) -> bool | None:
    """An inequality in one variable against a set or an interval (``x > 3`` and ``(3, \\infty)``): the set of
    its solutions compared with the set; None when the two are not that pair."""
    from sympy import Set

    g, a = g_parsed[0], a_parsed[0]
    g_set, a_set = _inequality_set(g), _inequality_set(a)
    if g_set is not None and isinstance(a, Set):
        return bool(g_set == a)
    if a_set is not None and isinstance(g, Set):
        return bool(a_set == g)
    return None


def _inequality_set(expr: Any) -> Any:
    from sympy import And, FiniteSet, Or
    from sympy.core.relational import Equality, Relational

    if isinstance(expr, FiniteSet) and expr.args and all(isinstance(x, Relational) for x in expr.args):
        expr = Or(*expr.args)  # "x < 1 or x > 2" as math-verify reads it
    parts = expr.args if isinstance(expr, (And, Or)) else (expr,)
    if not parts or not all(isinstance(p, Relational) and not isinstance(p, Equality) for p in parts):
        return None
    if len(expr.free_symbols) != 1:
        return None
    try:
        return expr.as_set()
    except (NotImplementedError, TypeError, ValueError):
        return None


def agrees(committed: tuple[str, ...] | list[str], later: str, approximate: bool = False) -> bool:
    """Whether a value written after the answer restates it: equal, or any correct rounding of it (``\\boxed{7/15},
    or about 46.7%``); within 5% when the text marks it approximate ("about", ``\\approx``)."""
    for value in committed:
        if equivalent(value, later, places=0):
            return True
        if approximate:
            g, a = _plain(normalize(value))[2], _plain(normalize(later))[2]
            if g is not None and a is not None:
                a_value = a.value / 100 if a.percent and not g.percent else a.value
                if approximately(g.value, a_value) or approximately(g.value, a.value):
                    return True
                continue
            g_parsed = _parse(for_sympy(normalize(value)))
            a_parsed = _parse(for_sympy(normalize(later)))
            g_value, a_value2 = _as_number(g_parsed), _as_number(a_parsed)
            if g_value is not None and a_value2 is not None and approximately(g_value[0], a_value2[0]):
                return True
    return False


def _distinct(values: list[str], symbolic: bool = True, places: int = ROUNDING_PLACES) -> list[str]:
    """``values`` without repeats; ``symbolic=False`` compares spelling and plain numbers only (cheap)."""
    kept: list[str] = []
    for value in values:
        if not any(_same_spelling(k, value) or (symbolic and equivalent(k, value, places)) for k in kept):
            kept.append(value)
    return kept


def _same_spelling(a: str, b: str) -> bool:
    a, b = normalize(a), normalize(b)
    if a.replace(" ", "") == b.replace(" ", ""):
        return True
    x, y = parse_number(a), parse_number(b)
    return x is not None and y is not None and x.value == y.value and x.percent == y.percent


def _single_fraction(gold_values: list[str]) -> bool:
    """Whether the reference is one number that is not an integer (``1.5``, ``\\frac{3}{2}``)."""
    if len(gold_values) != 1:
        return False
    number = parse_number(normalize(gold_values[0]))
    return number is not None and number.value.denominator != 1


def judge(answer_values: tuple[str, ...] | list[str], reference: str, places: int = ROUNDING_PLACES) -> Judgement:
    """Judge the values an answer states against the reference.

    A comma in the reference separates values (datasets write decimals with a point). A comma in the answer
    that is not a thousands group (``1,5``) is read as a decimal comma only when the reference is a single
    non-integer number; otherwise it separates values. Neither side's comma can then give false credit."""
    gold_values = split_values(reference)
    if not gold_values:
        return Judgement(False, Status.INVALID_REFERENCE, "the reference holds no value")
    gold_readings = [gold_values]
    answer_readings = [[v for raw in answer_values for v in split_values(raw)]]
    if (
        len(answer_values) == 1
        and _single_fraction(gold_values)
        and (decimal := decimal_comma_reading(answer_values[0])) is not None
    ):
        answer_readings = [[decimal]]
    if not answer_readings[0]:
        return Judgement(False, Status.PARSE_ERROR, "the answer holds no value")
    first: Judgement | None = None
    for gold_values in gold_readings:
        for values in answer_readings:
            result = _judge_reading(gold_values, values, reference, places)
            if result.correct:
                return result
            first = first or result
    assert first is not None
    return first


def _judge_reading(gold_values: list[str], values: list[str], reference: str, places: int) -> Judgement:
    # An ordered pair may be written as assignments on either side: (2, 3) and x=2, y=3.
    if len(gold_values) == 1 and is_tuple(normalize(gold_values[0])) and (pair := assignments_tuple(values)):
        values = [pair]
    elif len(values) == 1 and is_tuple(normalize(values[0])) and (pair := assignments_tuple(gold_values)):
        gold_values = [pair]
    gold_values = _distinct(gold_values, symbolic=False) if len(gold_values) > 1 else gold_values
    if len(gold_values) == 1:
        return _judge_single(gold_values[0], values, places)
    return _judge_several(reference, gold_values, values, places)


def _judge_single(gold: str, values: list[str], places: int) -> Judgement:
    if len(values) > 1:
        distinct = _distinct(values, places=places)
        if len(distinct) > 1:
            hit = any(equivalent(gold, v, places) for v in distinct)
            return Judgement(
                False,
                Status.HEDGED,
                f"{len(distinct)} different values given where one is expected"
                + (" (one of them right)" if hit else ""),
            )
        values = distinct
    answer = values[0]
    result = equivalent(gold, answer, places)
    if result is None:
        return Judgement(False, Status.PARSE_ERROR, "the answer could not be parsed")
    a_set, g_set = "\\{" in answer, "\\{" in gold
    if not result and a_set and _set_size(_parse(normalize(answer))) > 1 and not g_set:
        return Judgement(False, Status.HEDGED, "a set of several values given where one is expected")
    return Judgement(result, Status.OK, "equivalent" if result else "not equivalent")


def _judge_several(reference: str, gold_values: list[str], values: list[str], places: int) -> Judgement:
    if len(values) == 1:
        if parse_number(normalize(values[0])) is not None:  # one number never states several values (1.5 vs 1,5)
            return Judgement(False, Status.OK, f"one number given where {len(gold_values)} values are expected")
        whole = equivalent(normalize(reference), values[0], places)
        if whole is None:
            return Judgement(False, Status.PARSE_ERROR, "the answer could not be parsed")
        return Judgement(whole, Status.OK, "equivalent as a whole" if whole else "not equivalent")
    values = _distinct(values, symbolic=False)
    unmatched = list(values)
    missing = 0
    for gold in gold_values:
        match = next((v for v in unmatched if equivalent(gold, v, places)), None)
        if match is None:
            missing += 1
        else:
            unmatched.remove(match)
    if missing == 0 and not unmatched:
        return Judgement(True, Status.OK, f"all {len(gold_values)} values match")
    if missing == 0:
        return Judgement(False, Status.HEDGED, f"{len(unmatched)} extra values beyond the {len(gold_values)} expected")
    return Judgement(False, Status.OK, f"{missing} of {len(gold_values)} expected values missing")
