"""Call-based rows (APPS/TACO ``fn_name``, LiveCodeBench ``functional``, PrimeIntellect ``function_call``)
as test code for the harness: one ``assert`` per case, so each case is one test with its own time limit.

The cases travel as one JSON literal inside the tests (the supervisor decodes it with its own ``json``);
the function is the program's ``fn_name``, or the method of that name on a fresh ``Solution()`` when the
program defines ``class Solution`` (the graders' LeetCode rule). It is bound as the program's even when a
builtin has the same name (``imports``). The comparison runs in the supervisor on exact built-in values:

* ``apps`` (APPS, TACO, PrimeIntellect): a returned tuple counts as a list (at any depth); the result
  matches the expected value, or, when that is a one-element list, its element (those datasets wrap a
  return value in a list); dict keys that JSON turned into strings match integer keys.
* ``lcb`` (LiveCodeBench): tuples count as lists; the result must equal the expected value.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from rewardkit.verifiers.code_tests.formats.errors import InvalidReference

_HELPERS = """
import json as __rk_json__
__rk_cases__ = __rk_json__.loads(__RK_DATA__)
def __rk_plain__(value):
    if type(value) is tuple or type(value) is list:
        return [__rk_plain__(item) for item in value]
    if type(value) is dict:
        return {key: __rk_plain__(item) for key, item in value.items()}
    return value
def __rk_int_keys__(value):
    if type(value) is dict:
        try:
            return {int(key): item for key, item in value.items()}
        except (TypeError, ValueError):
            return value
    return value
def __rk_same_apps__(got, expected):
    got = __rk_plain__(got)
    if got == expected or got == __rk_int_keys__(expected):
        return True
    if type(expected) is list and len(expected) == 1:
        return got == expected[0] or got == __rk_int_keys__(expected[0])
    return False
def __rk_same_lcb__(got, expected):
    return __rk_plain__(got) == expected
"""
RULES = ("apps", "lcb")
MAX_LABEL = 120


def call_tests(fn_name: Any, cases: Sequence[tuple[Any, Any]], rule: str, program: str) -> dict[str, Any]:
    """The harness spec that calls ``fn_name`` once per ``(args, expected)`` case and compares by ``rule``."""
    if not isinstance(fn_name, str) or not fn_name.isidentifier():
        raise InvalidReference(f"a call-based reference needs a function name (fn_name), got {fn_name!r}")
    if rule not in RULES:
        raise ValueError(f"unknown comparison rule {rule!r}")
    if not cases:
        raise InvalidReference("a call-based reference needs at least one case")
    cases = [(list(args), expected) for args, expected in cases]
    try:
        data = json.dumps(cases)
    except (TypeError, ValueError) as exc:
        raise InvalidReference(f"the call-based cases are not plain JSON data: {exc}") from None
    leetcode = "class Solution" in program  # the graders' own rule for LeetCode-style programs
    target = f"Solution().{fn_name}" if leetcode else fn_name
    lines = [_HELPERS.replace("__RK_DATA__", repr(data))]
    labels = []
    for index, (args, expected) in enumerate(cases):
        lines.append(f"assert __rk_same_{rule}__({target}(*__rk_cases__[{index}][0]), __rk_cases__[{index}][1])\n")
        labels.append(_label(target, args, expected))
    return {
        "mode": "function",
        "test": "".join(lines),
        "entry_point": None,
        "imports": ["Solution"] if leetcode else [fn_name],
        "labels": labels,
    }


def _label(target: str, args: list[Any], expected: Any) -> str:
    shown = ", ".join(_short(a) for a in args)
    return f"{target}({shown}) == {_short(expected)}"[: MAX_LABEL * 2]


def _short(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= MAX_LABEL else text[: MAX_LABEL - 3] + "..."
