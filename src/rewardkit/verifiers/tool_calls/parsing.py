"""Parse: one call from JSON or Python-call text, read strictly and within bounds.

JSON is read strictly: a key written twice in one object (which value would a tool see?), ``NaN`` and
``Infinity`` (not JSON) and text nested deeper than :data:`MAX_DEPTH` or longer than :data:`MAX_CHARS` are
:class:`MalformedCall`, never a crash or a hang. Pythonic calls (``[get_weather(city="Paris")]``, as ToolACE
and Llama 3.2 write them) are read with :mod:`ast`, keyword arguments and literal values only.
"""

from __future__ import annotations

import ast
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

MAX_CHARS = 200_000  # one call's text
MAX_DEPTH = 32  # nesting of a call's arguments


_ARGUMENT_KEYS = ("arguments", "parameters", "kwargs")  # kwargs: tau-bench's actions


class MalformedCall(ValueError):
    """A call the model wrote that cannot be read: bad JSON, no function name, arguments not an object."""


@dataclass(frozen=True)
class Call:
    """One function call: its name and its arguments (a JSON object)."""

    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "arguments": dict(self.arguments)}


class _Refused(ValueError):
    pass


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        twice = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        raise _Refused(f"the key {twice!r} is written twice in one object")
    return out


def _constant(name: str) -> Any:
    raise _Refused(f"{name} is not a JSON number")


def _float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _Refused(f"{text} is out of range")
    return value


_DECODER = json.JSONDecoder(object_pairs_hook=_pairs, parse_constant=_constant, parse_float=_float)


def depth(value: Any) -> int:
    """How deep lists and objects nest in ``value`` (a scalar is 0), without recursion."""
    if not isinstance(value, (dict, list, tuple)):
        return 0
    deepest, stack = 1, [(value, 1)]
    while stack and deepest <= MAX_DEPTH:
        item, level = stack.pop()
        deepest = max(deepest, level)
        for child in item.values() if isinstance(item, dict) else item:
            if isinstance(child, (dict, list, tuple)):
                stack.append((child, level + 1))
    return deepest


def _bounded(value: Any, where: str) -> Any:
    if depth(value) > MAX_DEPTH:
        raise MalformedCall(f"{where} nests deeper than {MAX_DEPTH} levels")
    return value


def load_json(text: str, where: str) -> Any:
    """``text`` as one JSON value, strictly (see the module docstring)."""
    values = load_json_values(text, where)
    if len(values) != 1:
        raise MalformedCall(f"{where} is not valid JSON (more than one value)")
    return values[0]


def load_json_values(text: str, where: str, separators: str = "") -> list[Any]:
    """The JSON values written one after another in ``text`` (white space and ``separators`` between them)."""
    if len(text) > MAX_CHARS:
        raise MalformedCall(f"{where} is longer than {MAX_CHARS} characters")
    values, at, skip = [], 0, " \t\r\n" + separators
    while True:
        while at < len(text) and text[at] in skip:
            at += 1
        if at == len(text):
            break
        try:
            value, at = _DECODER.raw_decode(text, at)
        except _Refused as exc:
            raise MalformedCall(f"{where}: {exc}") from None
        except ValueError as exc:
            raise MalformedCall(f"{where} is not valid JSON ({exc})") from None
        except RecursionError:
            raise MalformedCall(f"{where} nests deeper than {MAX_DEPTH} levels") from None
        values.append(_bounded(value, where))
    if not values:
        raise MalformedCall(f"{where} is empty")
    return values


def read_call(item: Any, where: str, checked: bool = False) -> Call:
    """One call from ``{"name", "arguments"|"parameters"|"kwargs"}`` or OpenAI's ``{"function": {...}}``; arguments
    given as a JSON string (OpenAI's form, or a string inside a string) are read as JSON. ``checked``: the
    item came from :func:`load_json_values`, already within the bounds."""
    if isinstance(item, Mapping) and isinstance(item.get("function"), Mapping):
        outer, item = item, item["function"]
        if any(key in outer and outer[key] != item.get(key) for key in ("name", *_ARGUMENT_KEYS)):
            raise MalformedCall(f"{where}: the call names its function or arguments twice, differently")
    if not isinstance(item, Mapping):
        raise MalformedCall(f"{where}: a call must be a JSON object, got {type(item).__name__}")
    name = item.get("name")
    if not isinstance(name, str) or not name.strip():
        raise MalformedCall(f"{where}: a call needs a function name, got {name!r}")
    if name != name.strip():
        raise MalformedCall(f"{where}: the function name {name!r} has white space around it")
    given = [key for key in _ARGUMENT_KEYS if key in item]
    if len(given) > 1:
        raise MalformedCall(f"{where}: the call to {name!r} gives its arguments twice ({', '.join(given)})")
    arguments = item[given[0]] if given else {}
    for _ in range(2):  # a JSON string, or a JSON string of a JSON string
        if not isinstance(arguments, str):
            break
        arguments = load_json(arguments, f"{where}: the arguments of {name!r}") if arguments.strip() else {}
        checked = True
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, Mapping):
        raise MalformedCall(f"{where}: the arguments of {name!r} must be an object, got {type(arguments).__name__}")
    return Call(name, dict(arguments) if checked else _bounded(dict(arguments), where))


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def pythonic_calls(text: str, where: str) -> list[Call]:
    """``[f(a=1), g(b="x")]`` or ``f(a=1)``: calls with keyword arguments whose values are literals."""
    if len(text) > MAX_CHARS:
        raise MalformedCall(f"{where} is longer than {MAX_CHARS} characters")
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise MalformedCall(f"{where} is not a list of Python calls") from None
    nodes = tree.elts if isinstance(tree, (ast.List, ast.Tuple)) else [tree]
    calls = []
    for node in nodes:
        name = _dotted(node.func) if isinstance(node, ast.Call) else None
        if not isinstance(node, ast.Call) or name is None or node.args:
            raise MalformedCall(f"{where}: each item must be a call with keyword arguments, name(arg=value)")
        arguments = {}
        for keyword in node.keywords:
            if keyword.arg is None or keyword.arg in arguments:
                raise MalformedCall(f"{where}: {name} has a **spread or a repeated argument")
            try:
                arguments[keyword.arg] = ast.literal_eval(keyword.value)
            except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                raise MalformedCall(f"{where}: the argument {keyword.arg!r} of {name} is not a literal") from None
        calls.append(Call(name, _bounded(_jsonable(arguments), where)))
    return calls


def _jsonable(value: Any) -> Any:
    """A Python literal as JSON would hold it: tuples and sets become lists."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in value]
    return value


def python_literal(text: str, where: str) -> Any:
    """A Python literal (``{'name': 'f', 'arguments': {...}}``, as some datasets store calls), bounded."""
    if len(text) > MAX_CHARS:
        raise MalformedCall(f"{where} is longer than {MAX_CHARS} characters")
    try:
        return _bounded(_jsonable(ast.literal_eval(text.strip())), where)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        raise MalformedCall(f"{where} is neither JSON nor a Python literal") from None
