"""The instruction checks by id, and the arguments each one takes.

A check is a function ``(response, args) -> bool``. It is registered with the names and kinds of its
arguments; :func:`bind` turns a dataset row's kwargs into those arguments (numbers stored as floats or
strings read as integers, a lone keyword read as a list) or says what is wrong with them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

CheckFn = Callable[[str, Mapping[str, Any]], bool]

#: IFEval's comparisons: "less than" is strict, "at least" is inclusive.
RELATIONS = ("less than", "at least")
#: open-instruct's older single-constraint rows: "around" is within 10% (at least 1).
QUANTIFIERS = ("at least", "at most", "around")

INT, TEXT, WORDS, RELATION, LETTER, QUANTIFIER = "int", "text", "words", "relation", "letter", "quantifier"


@dataclass(frozen=True)
class Check:
    """One instruction id: its function, its required arguments and its optional ones (with defaults)."""

    id: str
    fn: CheckFn
    required: Mapping[str, str] = field(default_factory=dict)
    optional: Mapping[str, tuple[str, Any]] = field(default_factory=dict)
    #: which argument the row's prompt fills when the kwargs lack it (IFEval's repeat_prompt)
    prompt_arg: str | None = None


CHECKS: dict[str, Check] = {}


def check(
    instruction_id: str,
    optional: Mapping[str, tuple[str, Any]] | None = None,
    prompt_arg: str | None = None,
    **required: str,
) -> Callable[[CheckFn], CheckFn]:
    def register(fn: CheckFn) -> CheckFn:
        CHECKS[instruction_id] = Check(instruction_id, fn, required, dict(optional or {}), prompt_arg)
        return fn

    return register


class BadArguments(ValueError):
    """A row's kwargs do not fit its instruction: the dataset's problem, not the model's."""


def compare(count: int, relation: str, threshold: int) -> bool:
    return count < threshold if relation == RELATIONS[0] else count >= threshold


def quantified(count: int, quantifier: str, target: int, around: int | None = None) -> bool:
    if quantifier == "at least":
        return count >= target
    if quantifier == "at most":
        return count <= target
    return abs(count - target) <= (around if around is not None else max(round(target * 0.1), 1))


def bind(spec: Check, kwargs: Mapping[str, Any], prompt: str | None = None) -> dict[str, Any]:
    """The arguments of ``spec`` read from a row's kwargs (None values are absent, as in google/IFEval)."""
    given = {k: v for k, v in kwargs.items() if v is not None}
    if spec.prompt_arg and spec.prompt_arg not in given and prompt:
        given[spec.prompt_arg] = prompt
    args: dict[str, Any] = {}
    missing = [name for name in spec.required if name not in given]
    if missing:
        raise BadArguments(
            f"{spec.id} needs {', '.join(missing)}; the row gives {', '.join(sorted(given)) or 'no arguments'}"
        )
    for name, kind in spec.required.items():
        args[name] = _read(spec.id, name, kind, given[name])
    for name, (kind, default) in spec.optional.items():
        args[name] = _read(spec.id, name, kind, given[name]) if name in given else default
    return args


def _read(instruction: str, name: str, kind: str, value: Any) -> Any:
    where = f"{instruction}: {name}"
    if kind == INT:
        if isinstance(value, bool):
            raise BadArguments(f"{where} must be a whole number, got {value!r}")
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        elif isinstance(value, str) and re.fullmatch(r"\s*\d+(?:\.0*)?\s*", value):
            value = int(float(value))
        if not isinstance(value, int) or value < 0:
            raise BadArguments(f"{where} must be a whole number >= 0, got {value!r}")
        return value
    if kind in (RELATION, QUANTIFIER):
        choices = RELATIONS if kind == RELATION else QUANTIFIERS
        if value not in choices:
            raise BadArguments(f"{where} must be one of {', '.join(map(repr, choices))}, got {value!r}")
        return value
    if kind == WORDS:
        if isinstance(value, str):
            value = [value]
        if hasattr(value, "tolist"):
            value = value.tolist()
        if not isinstance(value, (list, tuple)) or not value or not all(isinstance(w, str) and w for w in value):
            raise BadArguments(f"{where} must be a non-empty list of words, got {value!r}")
        return [str(w) for w in value]
    if kind == LETTER:
        if not isinstance(value, str) or len(value.strip()) != 1:
            raise BadArguments(f"{where} must be a single letter, got {value!r}")
        return value.strip().lower()
    if isinstance(value, (list, tuple)) and len(value) == 1:
        value = value[0]  # open-instruct stores some single words as one-item lists
    if not isinstance(value, str) or not value.strip():
        raise BadArguments(f"{where} must be non-empty text, got {value!r}")
    return value
