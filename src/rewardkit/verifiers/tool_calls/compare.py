"""Compare: one predicted call against one reference call, and the best pairing of two call sets.

A value matches when it equals an accepted value by type: numbers by value (``1 == 1.0``, a non-whole float
never fits an ``integer`` parameter), booleans only booleans, a number and a string never, except for a
parameter the schema types ``string`` (then ``1`` and ``"1"`` read alike), lists item by item in order,
objects key by key. ``strings`` says how strings compare: ``exact``, ``casefold`` (case and runs of white
space ignored) or ``bfcl`` (BFCL's rule: spaces and ``,./-_*^`` dropped, case ignored). ``strict_integers``
(BFCL's rule) refuses any float, ``5.0`` too, for an ``integer`` parameter.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rewardkit.verifiers.tool_calls.calls import Call
from rewardkit.verifiers.tool_calls.reference import OMITTED, ReferenceCall

_BFCL_DROPPED = re.compile(r"[ ,./\-_*^]")


@dataclass(frozen=True)
class Rules:
    """How values compare: the string rule, and whether an integer parameter refuses every float."""

    strings: str = "exact"
    strict_integers: bool = False


def normalise(text: str, strings: str) -> str:
    if strings == "exact":
        return text
    if strings == "casefold":
        return " ".join(text.split()).casefold()
    return _BFCL_DROPPED.sub("", text).lower().replace("'", '"')


def _kinds(schema: Mapping[str, Any]) -> set[str]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return {kind}
    return {k for k in kind if isinstance(k, str)} if isinstance(kind, list) else set()


def _scalar(value: Any) -> bool:
    return isinstance(value, (str, int, float)) and not isinstance(value, bool)


def same(value: Any, expected: Any, schema: Mapping[str, Any], rules: Rules, choices: bool = False) -> bool:
    """Whether ``value`` matches the accepted value ``expected`` for a parameter typed by ``schema``.

    ``choices``: ``expected``'s objects map each key to a list of accepted values (BFCL's nested answers)."""
    if choices and isinstance(expected, dict):
        return _choice_object(value, expected, schema, rules)
    if isinstance(value, bool) or isinstance(expected, bool):
        return isinstance(value, bool) and isinstance(expected, bool) and value == expected
    kinds = _kinds(schema)
    if isinstance(value, (int, float)) and isinstance(expected, (int, float)):
        if "integer" in kinds and "number" not in kinds and isinstance(value, float):
            if rules.strict_integers or not value.is_integer():
                return False
        return value == expected
    if isinstance(value, str) and isinstance(expected, str):
        return normalise(value, rules.strings) == normalise(expected, rules.strings)
    if "string" in kinds and _scalar(value) and _scalar(expected):
        return normalise(str(value), rules.strings) == normalise(str(expected), rules.strings)
    if isinstance(value, (list, tuple)) and isinstance(expected, (list, tuple)):
        if len(value) != len(expected):
            return False
        items = schema.get("items")
        item_schema = items if isinstance(items, Mapping) else {}
        return all(same(v, e, item_schema, rules, choices) for v, e in zip(value, expected, strict=True))
    if isinstance(value, dict) and isinstance(expected, dict):
        if set(value) != set(expected):
            return False
        properties = schema.get("properties")
        props = properties if isinstance(properties, Mapping) else {}
        return all(same(value[k], expected[k], props.get(k, {}), rules) for k in expected)
    return type(value) is type(expected) and bool(value == expected)


def _choice_object(value: Any, expected: Mapping[str, Any], schema: Mapping[str, Any], rules: Rules) -> bool:
    if not isinstance(value, Mapping):
        return False
    properties = schema.get("properties")
    props = properties if isinstance(properties, Mapping) else {}
    for key, allowed in expected.items():
        options = allowed if isinstance(allowed, list) else [allowed]
        if key not in value:
            if OMITTED not in options:
                return False
        elif not any(same(value[key], o, props.get(key, {}), rules) for o in options if o != OMITTED):
            return False
    return all(key in expected for key in value)


def score_call(
    call: Call, reference: ReferenceCall, schema: Mapping[str, Any] | None, rules: Rules
) -> tuple[float, list[str]]:
    """The share of the reference call's arguments the call gets right (0 for another function), and what
    is wrong. An argument the call adds counts against it, unless it is an optional one set to its default;
    an argument it leaves out counts for it when the reference marks it optional or it is optional in the
    schema with the reference's value as its default."""
    if call.name != reference.name:
        return 0.0, [f"calls {call.name!r}, not {reference.name!r}"]
    properties = (schema or {}).get("properties")
    props: Mapping[str, Any] = properties if isinstance(properties, Mapping) else {}
    required = set((schema or {}).get("required") or ())
    right = total = 0
    problems = []
    for name, expected in reference.arguments.items():
        total += 1
        spec = props.get(name, {})
        if name not in call.arguments:
            defaulted = (
                schema is not None
                and name not in required
                and "default" in spec
                and any(same(spec["default"], v, spec, rules, expected.choices) for v in expected.values)
            )
            if expected.optional or defaulted:
                right += 1
            else:
                problems.append(f"{name!r} missing")
        elif any(same(call.arguments[name], v, spec, rules, expected.choices) for v in expected.values):
            right += 1
        else:
            problems.append(f"{name!r} is {call.arguments[name]!r}")
    for name, value in call.arguments.items():
        if name in reference.arguments:
            continue
        spec = props.get(name)
        if isinstance(spec, Mapping) and name not in required and "default" in spec:
            if same(value, spec["default"], spec, rules):
                continue
        total += 1
        problems.append(f"{name!r} unexpected")
    return (right / total if total else 1.0), problems


def best_pairs(scores: Sequence[Sequence[float]]) -> list[tuple[int, int]]:
    """The (row, column) pairs of a one-to-one assignment with the largest total score (Hungarian method)."""
    n = len(scores)
    m = len(scores[0]) if n else 0
    if not n or not m:
        return []
    if n > m:
        return [(i, j) for j, i in best_pairs([list(column) for column in zip(*scores, strict=True)])]
    inf = float("inf")
    u, v = [0.0] * (n + 1), [0.0] * (m + 1)
    owner, way = [0] * (m + 1), [0] * (m + 1)
    for row in range(1, n + 1):
        owner[0], col = row, 0
        least, used = [inf] * (m + 1), [False] * (m + 1)
        while True:
            used[col] = True
            r, delta, nxt = owner[col], inf, 0
            for j in range(1, m + 1):
                if not used[j]:
                    cost = -scores[r - 1][j - 1] - u[r] - v[j]
                    if cost < least[j]:
                        least[j], way[j] = cost, col
                    if least[j] < delta:
                        delta, nxt = least[j], j
            for j in range(m + 1):
                if used[j]:
                    u[owner[j]] += delta
                    v[j] -= delta
                else:
                    least[j] -= delta
            col = nxt
            if owner[col] == 0:
                break
        while col:
            prev = way[col]
            owner[col] = owner[prev]
            col = prev
    return [(owner[j] - 1, j - 1) for j in range(1, m + 1) if owner[j]]
