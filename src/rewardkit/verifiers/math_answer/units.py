"""Units after a number: ``120 seconds`` is not ``120 minutes``, ``2 minutes`` is ``120 seconds``.

When both sides carry a unit this table knows, they are compared within its dimension (length, area, volume,
time, calendar time, mass, speed, money, temperature scales, angles): converted exactly when the dimension is
the same, never equal when it is not. A unit on one side only is dropped (``10`` matches ``10 cm``), and so
are words this table does not know (``12 apples``): only a unit changes the value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

# (dimension, how many base units one of it is, its names)
_TABLE: list[tuple[str, Fraction, tuple[str, ...]]] = [
    ("length", Fraction(1, 1000), ("mm", "millimeter", "millimetre")),
    ("length", Fraction(1, 100), ("cm", "centimeter", "centimetre")),
    ("length", Fraction(1, 10), ("dm", "decimeter", "decimetre")),
    ("length", Fraction(1), ("m", "meter", "metre")),
    ("length", Fraction(1000), ("km", "kilometer", "kilometre")),
    ("length", Fraction(127, 5000), ("in", "inch", "inches")),
    ("length", Fraction(381, 1250), ("ft", "foot", "feet")),
    ("length", Fraction(1143, 1250), ("yd", "yard")),
    ("length", Fraction(1609344, 1000), ("mi", "mile")),
    ("time", Fraction(1, 1000), ("ms", "millisecond")),
    ("time", Fraction(1), ("s", "sec", "second")),
    ("time", Fraction(60), ("min", "minute")),
    ("time", Fraction(3600), ("h", "hr", "hour")),
    ("time", Fraction(86400), ("day",)),
    ("time", Fraction(604800), ("wk", "week")),
    ("calendar", Fraction(1), ("month", "mo")),
    ("calendar", Fraction(12), ("year", "yr")),
    ("calendar", Fraction(120), ("decade",)),
    ("calendar", Fraction(1200), ("century", "centuries")),
    ("mass", Fraction(1, 1000), ("mg", "milligram")),
    ("mass", Fraction(1), ("g", "gram", "gramme")),
    ("mass", Fraction(1000), ("kg", "kilogram", "kilo")),
    ("mass", Fraction(10**6), ("t", "tonne", "metric ton")),
    ("mass", Fraction(45359237, 100000), ("lb", "lbs", "pound")),
    ("mass", Fraction(45359237, 1600000), ("oz", "ounce")),
    ("volume", Fraction(1, 10**6), ("ml", "milliliter", "millilitre", "cc")),
    ("volume", Fraction(1, 1000), ("l", "liter", "litre")),
    ("volume", Fraction(3785411784, 10**12), ("gal", "gallon")),
    ("volume", Fraction(946352946, 10**12), ("qt", "quart")),
    ("volume", Fraction(473176473, 10**12), ("pt", "pint")),
    ("volume", Fraction(2365882365, 10**13), ("cup",)),
    ("volume", Fraction(1478676478125, 10**17), ("tbsp", "tablespoon")),
    ("volume", Fraction(492892159375, 10**17), ("tsp", "teaspoon")),
    ("speed", Fraction(1), ("m/s", "meters per second", "metres per second")),
    ("speed", Fraction(5, 18), ("km/h", "kph", "kmh", "kilometers per hour", "kilometres per hour")),
    ("speed", Fraction(1609344, 3600000), ("mph", "mi/h", "miles per hour")),
    ("speed", Fraction(381, 1250), ("ft/s", "feet per second")),
    ("money", Fraction(1), ("cent", "¢")),
    ("money", Fraction(100), ("dollar", "usd")),
    ("euro", Fraction(1), ("euro", "eur")),
    ("celsius", Fraction(1), ("°c", "celsius", "degrees celsius")),
    ("fahrenheit", Fraction(1), ("°f", "fahrenheit", "degrees fahrenheit")),
    ("kelvin", Fraction(1), ("kelvin",)),
    ("angle", Fraction(1), ("degree", "deg")),
    ("radian", Fraction(1), ("radian", "rad")),
]
_CASE_SENSITIVE = {"L": ("volume", Fraction(1, 1000)), "mL": ("volume", Fraction(1, 10**6))}
_POWERS = {"square": 2, "sq": 2, "squared": 2, "cubic": 3, "cubed": 3, "²": 2, "³": 3}
#: Names too short or too common to read as a unit in prose ("3 in the box", "2 m", "5 s").
AMBIGUOUS_IN_PROSE = frozenset({"in", "l", "t", "mo", "pt", "rad", "deg", "cc", "day", "cup", "mi"})


@dataclass(frozen=True)
class Unit:
    dimension: str
    factor: Fraction  # base units per one of this unit

    def __pow__(self, power: int) -> Unit:
        return Unit(f"{self.dimension}^{power}", self.factor**power)


_BY_NAME: dict[str, tuple[str, Fraction]] = {}
for _dimension, _factor, _names in _TABLE:
    for _name in _names:
        _BY_NAME[_name] = (_dimension, _factor)

_SPACES = re.compile(r"\s+")
_POWER_SUFFIX = re.compile(r"\s*(?:\^\s*\{?\s*([23])\s*\}?|([²³])|\s(squared|cubed))$")
_POWER_PREFIX = re.compile(r"^(square|sq\.?|cubic)\s+")


def _named(name: str) -> Unit | None:
    if name in _CASE_SENSITIVE:
        return Unit(*_CASE_SENSITIVE[name])
    lower = name.lower().rstrip(".")
    for candidate in (lower, lower[:-1] if lower.endswith("s") else None, lower[:-2] if lower.endswith("es") else None):
        if candidate and candidate in _BY_NAME:
            return Unit(*_BY_NAME[candidate])
    return None


def unit_of(text: str) -> Unit | None:
    """The unit ``text`` names (``cm``, ``minutes``, ``square feet``, ``m^2``, ``km/h``), or None when the
    table does not know it."""
    name = _SPACES.sub(" ", text.strip())
    if not name:
        return None
    whole = _named(name)
    if whole is not None:
        return whole
    power = 1
    suffix = _POWER_SUFFIX.search(name)
    if suffix:
        power = int(suffix.group(1)) if suffix.group(1) else _POWERS[suffix.group(2) or suffix.group(3)]
        name = name[: suffix.start()].strip()
    prefix = _POWER_PREFIX.match(name)
    if prefix:
        power = _POWERS[prefix.group(1).rstrip(".")]
        name = name[prefix.end() :]
    base = _named(name)
    if base is None or power == 1:
        return base
    if base.dimension == "length" and power == 3:
        return Unit("volume", base.factor**3)  # cubic metres and litres are one dimension
    return base**power


def conversion(gold_unit: str, answer_unit: str) -> Fraction | None | bool:
    """How many gold units one answer unit is; False when both are known units of different dimensions;
    None when either is not a unit this table knows (the words are then ignored)."""
    gold, answer = unit_of(gold_unit), unit_of(answer_unit)
    if gold is None or answer is None:
        return None
    if gold.dimension != answer.dimension:
        return False
    return answer.factor / gold.factor


def prose_unit_names() -> list[str]:
    """Unit names safe to read right after a number in prose (longest first, for one regex alternation)."""
    names = {n for n in _BY_NAME if n not in AMBIGUOUS_IN_PROSE and not n.startswith("°") and n != "¢"}
    return sorted(names, key=len, reverse=True)
