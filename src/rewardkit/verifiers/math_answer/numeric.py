"""Plain numbers and the exactness rule of the math verifier.

Integers and fractions are exact and compare exactly: ``1000001`` is not ``1000000``. An answer written as a
decimal matches an *exact* reference (an integer, a fraction, ``\\pi``) it does not equal only when it is that
value correctly rounded to at least ``places`` decimal places (6 by default, math-verify's precision):
``0.166667`` is ``1/6``, but ``0.333`` is not ``1/3``, ``3.14`` is not ``\\pi`` and ``0.438`` is not ``7/16`` —
a policy paid for those learns to stop giving exact answers. A reference written as a decimal is itself a
rounding: the less precise of two decimals is the rounded one (at least three significant digits), so
``16386.17`` is ``16386.169``, and an exact answer that rounds to a decimal reference matches it. A
percentage ``p%`` matches ``p`` and ``p/100``. Repeating decimals (``0.\\overline{3}``, ``0.1\\dot{6}``,
``0.333...``) are exact. Values that are neither (``\\sqrt{2}`` against ``\\pi/2``, evaluated by sympy) keep a
relative tolerance.
"""

from __future__ import annotations

import cmath
import re
from dataclasses import dataclass
from fractions import Fraction

RELATIVE_TOLERANCE = 1e-6
MIN_ROUNDED_DIGITS = 3
ROUNDING_PLACES = 6  # math-verify's float_rounding: a decimal for an exact value needs this many places
APPROXIMATE_TOLERANCE = 0.05  # "or about 47%": a restatement marked approximate, within 5%

_THOUSANDS = re.compile(r"^[-+]?[1-9]\d{0,2}(?:(?:,| )\d{3})+(?:\.\d+)?$")
_DECIMAL = re.compile(r"^[-+]?(?:\d+\.?\d*|\.\d+)$")
_SCIENTIFIC_E = re.compile(r"^[-+]?(?:\d+\.?\d*|\.\d+)[eE][-+]?\d+$")
_LATEX_FRAC = re.compile(r"^([-+]?)\\[dtc]?frac(?:\{\s*([-+]?)(\d+)\s*\}|(\d))(?:\{\s*([-+]?)(\d+)\s*\}|(\d))$")
_MIXED = re.compile(r"^([-+]?)(\d+)\s*(?:\\[dtc]?frac\s*(?:\{(\d+)\}|(\d))\s*(?:\{(\d+)\}|(\d))|\s(\d+)/(\d+))$")
_REPEATING = re.compile(r"^([-+]?)(\d*)\.(\d*)(?:\\overline\s*\{(\d{1,12})\}|\\overline\s*(\d)|\\dot\s*\{?(\d)\}?)$")
_ELLIPSIS = re.compile(r"^([-+]?\d*\.\d*?)((\d)\3{2,})\s*(?:\.\.\.|…|\\ldots|\\dots|\\cdots)$")
_TRAILING_DOTS = re.compile(r"\s*(?:\.\.\.|…|\\ldots|\\dots|\\cdots)$")
_SCI = re.compile(r"^([-+]?(?:\d+\.?\d*|\.\d+))\s*(?:\\times|\\cdot|\*|x)\s*10\s*\^\s*\{?\s*([-+]?\d{1,3})\s*\}?$")
_POW10 = re.compile(r"^10\s*\^\s*\{?\s*([-+]?\d{1,3})\s*\}?$")
_SLASH = re.compile(r"^([-+]?\d+)\s*/\s*(\d+)$")
_PERCENT = re.compile(r"\s*(?:\\%|%|\\text\{\s*%\s*\}|percent(?:age)?|pct)$")
_TIME = re.compile(r"^(\d{1,2}):(\d{2})(?::(\d{2}))?$")


@dataclass(frozen=True)
class Number:
    """A number as written: its exact value, its decimal places when written as a decimal, a percent sign."""

    value: Fraction
    places: int | None = None
    digits: int = 0
    percent: bool = False


def parse_number(text: str) -> Number | None:
    """A plain number written in any common way, exactly; None for anything else (never evaluates powers)."""
    compact = re.sub(r"\s+", " ", text.strip())
    percent = bool(_PERCENT.search(compact))
    if percent:
        compact = _PERCENT.sub("", compact).strip()
    if _THOUSANDS.match(compact):
        compact = compact.replace(",", "").replace(" ", "")
    mixed = _MIXED.match(compact)
    compact = compact.replace(" ", "")
    repeating = _repeating(compact)
    if repeating is not None:
        return Number(repeating, None, 0, percent)
    compact = _TRAILING_DOTS.sub("", compact)  # "0.142857..." is the decimal as far as it is written
    try:
        if _DECIMAL.match(compact):
            number = _decimal(compact)
        elif _SCIENTIFIC_E.match(compact):
            number = Number(Fraction(compact))
        elif m := mixed:
            if m.group(7):
                num, den = m.group(7), m.group(8)
            else:
                num, den = m.group(3) or m.group(4), m.group(5) or m.group(6)
            number = Number((int(m.group(2)) + Fraction(int(num), int(den))) * (-1 if m.group(1) == "-" else 1))
        elif m := _LATEX_FRAC.match(compact):
            signs = [m.group(1), m.group(2), m.group(5)].count("-")
            value = Fraction(int(m.group(3) or m.group(4)), int(m.group(6) or m.group(7)))
            number = Number(-value if signs % 2 else value)
        elif m := _SCI.match(compact):
            number = Number(Fraction(m.group(1)) * Fraction(10) ** int(m.group(2)))
        elif m := _POW10.match(compact):
            number = Number(Fraction(10) ** int(m.group(1)))
        elif m := _SLASH.match(compact):
            number = Number(Fraction(int(m.group(1)), int(m.group(2))))
        else:
            return None
    except (ValueError, ZeroDivisionError):
        return None
    return Number(number.value, number.places, number.digits, percent)


def _repeating(text: str) -> Fraction | None:
    """``0.\\overline{3}``, ``0.1\\overline{6}``, ``0.\\dot{6}`` or ``0.333...`` (a digit repeated, then dots)."""
    m = _REPEATING.match(text)
    if m:
        sign, whole, fixed, block = m.group(1), m.group(2), m.group(3), m.group(4) or m.group(5) or m.group(6)
    else:
        e = _ELLIPSIS.match(text)
        if not e:
            return None
        head, block = e.group(1), e.group(3)
        sign = "-" if head.startswith("-") else ""
        whole, _, fixed = head.lstrip("+-").partition(".")
    value = Fraction(int(whole or "0")) + (Fraction(int(fixed), 10 ** len(fixed)) if fixed else 0)
    value += Fraction(int(block), (10 ** len(block) - 1) * 10 ** len(fixed))
    return -value if sign == "-" else value


def _decimal(text: str) -> Number:
    value = Fraction(text)
    if "." not in text:
        return Number(value)
    places = len(text.split(".", 1)[1])
    digits = len(text.lstrip("+-").replace(".", "").lstrip("0"))
    return Number(value, places, digits)


def _rounds_to(decimal: Number, value: Fraction) -> bool:
    """Whether ``value`` rounds to ``decimal`` at the decimal's places (either tie rule)."""
    return decimal.places is not None and abs(value - decimal.value) * 2 * 10**decimal.places <= 1


def decimal_matches(decimal: Number, value: Fraction, *, decimal_is_reference: bool, places: int) -> bool:
    """Whether a written decimal stands for ``value`` (exact, or evaluated), by the exactness rule: a decimal
    reference when it carries three significant digits and ``value`` rounds to it; a decimal answer when it is
    ``value`` rounded to at least ``places`` places. ``places=0`` is the loose reading (any correct rounding)."""
    if not _rounds_to(decimal, value):
        return False
    if places == 0:
        return True
    if decimal_is_reference:
        return decimal.digits >= MIN_ROUNDED_DIGITS
    return decimal.places is not None and decimal.places >= places


def same_number(gold: Number, answer: Number, places: int = ROUNDING_PLACES) -> bool:
    """Exact equality, or a decimal that stands for the other value by the exactness rule (module docstring)."""
    if gold.percent != answer.percent:
        p, other = (gold, answer) if gold.percent else (answer, gold)
        plain = Number(p.value, p.places, p.digits)
        hundredth = Number(p.value / 100, None if p.places is None else p.places + 2, p.digits)
        pairs = ((plain, other), (hundredth, other)) if gold.percent else ((other, plain), (other, hundredth))
        return any(same_number(g, a, places) for g, a in pairs)
    if gold.value == answer.value:
        return True
    if gold.places is not None and answer.places is not None:  # two decimals: the less precise is the rounding
        if gold.places == answer.places:
            return False
        rounded, precise = (gold, answer) if gold.places < answer.places else (answer, gold)
        return (places == 0 or rounded.digits >= MIN_ROUNDED_DIGITS) and _rounds_to(rounded, precise.value)
    if gold.places is not None:
        return decimal_matches(gold, answer.value, decimal_is_reference=True, places=places)
    if answer.places is not None:
        return decimal_matches(answer, gold.value, decimal_is_reference=False, places=places)
    return False


def rounds_to_written(written: Number, value: complex, *, written_is_reference: bool, places: int) -> bool:
    """Whether an evaluated value (``\\sqrt{2}``) stands for a decimal as written (``1.414214``)."""
    if written.places is None or abs(value.imag) > 1e-15 or not cmath.isfinite(value):
        return False
    return decimal_matches(written, Fraction(value.real), decimal_is_reference=written_is_reference, places=places)


def approximately(a: complex | Fraction, b: complex | Fraction) -> bool:
    """Within ``APPROXIMATE_TOLERANCE`` of each other (a restatement the text marks as approximate)."""
    x, y = complex(a), complex(b)
    if not (cmath.isfinite(x) and cmath.isfinite(y)):
        return False
    return abs(x - y) <= APPROXIMATE_TOLERANCE * max(abs(x), abs(y))


def relative_close(a: complex | Fraction, b: complex | Fraction) -> bool:
    x, y = complex(a), complex(b)
    if not (cmath.isfinite(x) and cmath.isfinite(y)):
        return False  # an overflowed evaluation proves nothing, and inf - 3 <= tol * inf
    return abs(x - y) <= RELATIVE_TOLERANCE * max(abs(x), abs(y)) or abs(x - y) <= 1e-12


def same_time(a: str, b: str) -> bool | None:
    """Clock times (``20:34`` and ``20:34:00``) compared as times; None when either is not one."""
    ma, mb = _TIME.match(a.strip()), _TIME.match(b.strip())
    if not (ma and mb):
        return None
    seconds = [int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3) or 0) for m in (ma, mb)]
    return seconds[0] == seconds[1]
