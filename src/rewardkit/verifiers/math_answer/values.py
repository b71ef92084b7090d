"""A value as written, reduced to what comparisons between an answer and the values around it need."""

from __future__ import annotations

import re

from rewardkit.verifiers.math_answer.forms import normalize
from rewardkit.verifiers.math_answer.numeric import parse_number

_LABEL = re.compile(r"^[a-zA-Z](?:_\{?\w{1,3}\}?)?\s*=\s*")


def value_key(value: str) -> object:
    """A value as written, for cheap comparisons: numbers by exact value, an equation by its last side
    (``x = 4`` and ``6 \\cdot 7 = 42`` as ``4`` and ``42``); anything else by its spelling."""
    value = _LABEL.sub("", normalize(value)).replace(" ", "").rpartition("=")[2]
    number = parse_number(value)
    return number.value if number is not None and not number.percent else value
