"""Plain numbers and the exactness rule of the math verifier.

Integers and fractions are exact and compare exactly: ``1000001`` is not ``1000000``. A decimal written to
k places (with at least three significant digits) also matches a value that rounds to it at k places:
``0.166667`` is ``1/6`` and ``16386.17`` is ``16386.169``, but ``0.142858`` is not ``1/7`` and ``0.3`` is not
``1/3``. A percentage ``p%`` matches ``p`` and ``p/100``. Values that are neither (``\\sqrt{2}`` against
``\\pi/2``, evaluated by sympy) keep a relative tolerance.
"""

from __future__ import annotations

import cmath
import re
from dataclasses import dataclass
from fractions import Fraction

RELATIVE_TOLERANCE = 1e-6
MIN_ROUNDED_DIGITS = 3

_THOUSANDS = re.compile(r"^[-+]?[1-9]\d{0,2}(?:(?:,| )\d{3})+(?:\.\d+)?$")
_DECIMAL = re.compile(r"^[-+]?(?:\d+\.?\d*|\.\d+)$")
_SCIENTIFIC_E = re.compile(r"^[-+]?(?:\d+\.?\d*|\.\d+)[eE][-+]?\d+$")
_LATEX_FRAC = re.compile(r"^([-+]?)\\[dtc]?frac\{?\s*(\d+)\s*\}?\{?\s*(\d+)\s*\}?$")
_MIXED = re.compile(r"^([-+]?)(\d+)\s*(?:\\[dtc]?frac\{(\d+)\}\{(\d+)\}|\s(\d+)/(\d+))$")
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
    try:
        if _DECIMAL.match(compact):
            number = _decimal(compact)
        elif _SCIENTIFIC_E.match(compact):
            number = Number(Fraction(compact))
        elif m := mixed:
            num, den = (m.group(3), m.group(4)) if m.group(3) else (m.group(5), m.group(6))
            number = Number((int(m.group(2)) + Fraction(int(num), int(den))) * (-1 if m.group(1) == "-" else 1))
        elif m := _LATEX_FRAC.match(compact):
            number = Number(Fraction(int(m.group(2)), int(m.group(3))) * (-1 if m.group(1) == "-" else 1))
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


def _decimal(text: str) -> Number:
    value = Fraction(text)
    if "." not in text:
        return Number(value)
    places = len(text.split(".", 1)[1])
    digits = len(text.lstrip("+-").replace(".", "").lstrip("0"))
    return Number(value, places, digits)


def _rounds_to(decimal: Number, value: Fraction) -> bool:
    """Whether ``value`` rounds to ``decimal`` at the decimal's places (either tie rule)."""
    return (
        decimal.places is not None
        and decimal.digits >= MIN_ROUNDED_DIGITS
        and abs(value - decimal.value) * 2 * 10**decimal.places <= 1
    )


def same_number(a: Number, b: Number) -> bool:
    """Exact equality, or a written decimal that the other value rounds to (see the module docstring)."""
    if a.percent != b.percent:
        p, other = (a, b) if a.percent else (b, a)
        plain = Number(p.value, p.places, p.digits)
        return same_number(plain, other) or same_number(Number(p.value / 100), other)
    if a.value == b.value:
        return True
    for decimal, other in ((a, b), (b, a)):
        more_precise = other.places is None or (decimal.places is not None and other.places > decimal.places)
        if more_precise and _rounds_to(decimal, other.value):
            return True
    return False


def rounds_to_written(written: Number, value: complex) -> bool:
    """Whether an evaluated value (``\\sqrt{2}``) rounds to a decimal as written (``1.41421``)."""
    if written.places is None or abs(value.imag) > 1e-15 or not cmath.isfinite(value):
        return False
    return _rounds_to(written, Fraction(value.real))


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
