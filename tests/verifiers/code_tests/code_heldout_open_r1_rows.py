# ruff: noqa: E501  (rows of program text: a program line is clearer unbroken)
"""Held-out open-r1 and PrimeIntellect rows: ``verification_info`` as a dict or JSON text; stdin lines stripped
and equal, ``function_call`` cases as APPS calls them."""

from __future__ import annotations

import json

from code_heldout_model import add

# -- open-r1 verifiable-coding-problems-python and PrimeIntellect verifiable-coding-problems --------------------


def open_r1(info: dict | str) -> dict:
    return {
        "source": "codeforces",
        "task_type": "verifiable_code",
        "in_source_id": "heldout",
        "problem": "See the tests.",
        "gold_standard_solution": "",
        "problem_id": "heldout",
        "metadata": {"difficulty": "EASY", "memory_limit": None, "time_limit": None},
        "verification_info": info,
    }


def stdin_cases(pairs: list[tuple[str, str]]) -> list[dict]:
    return [{"fn_name": None, "input": i, "output": o, "type": "stdin_stdout"} for i, o in pairs]


def call_cases(fn: str, pairs: list[tuple[object, object]], as_text: bool = False) -> list[dict]:
    show = json.dumps if as_text else (lambda v: v)
    return [{"fn_name": fn, "input": show(i), "output": show(o), "type": "function_call"} for i, o in pairs]


add(
    "open_r1",
    "verification_info",
    open_r1(
        {"language": "python", "test_cases": stdin_cases([("2 3\n", "5\n"), ("10 -4\n", "6\n"), ("0 0\n", "0\n")])}
    ),
    {
        "correct": ("print(sum(map(int, input().split())))", 1.0),
        "partly": ("a, b = map(int, input().split())\nprint(a + abs(b))", 2 / 3),
        "wrong": ("a, b = map(int, input().split())\nprint(a * b)", 1 / 3),
    },
)
add(
    "open_r1",
    "verification_info",
    open_r1(json.dumps({"language": "python", "test_cases": stdin_cases([("abc\n", "cba\n"), ("x\n", "x\n")])})),
    {
        "correct": ("import sys\nprint(sys.stdin.readline().strip()[::-1])", 1.0),
        "partly": ("print(input())", 0.5),
        "wrong": ("print(input().upper())", 0.0),
    },
)
add(
    "open_r1",
    "verification_info",
    open_r1({"language": "python", "test_cases": stdin_cases([("3\n1 2 3\n", "1 2 3 \n"), ("2\n5 4\n", "4 5\n")])}),
    {
        "correct": ("input()\nprint(*sorted(map(int, input().split())))", 1.0),
        "partly": ("input()\nprint(input().strip())", 0.5),
        "wrong": ("input()\nprint(*sorted(map(int, input().split()), reverse=True))", 0.0),
    },
)
add(
    "open_r1",
    "verification_info",
    open_r1(
        json.dumps(
            {"language": "python", "test_cases": call_cases("add_all", [([1, 2], [3]), ([[4, 5], 6], [[10, 11]])])}
        )
    ),
    {
        "correct": ("def add_all(a, b):\n    return [x + b for x in a] if isinstance(a, list) else a + b", 1.0),
        "partly": ("def add_all(a, b):\n    return a + b if isinstance(a, int) else None", 0.5),
        "wrong": ("def add_all(a, b):\n    return 0", 0.0),
    },
    kind="call",
    fn="add_all",
)
add(
    "open_r1",
    "verification_info",
    open_r1(
        {
            "language": "python",
            "test_cases": call_cases("pairs", [([[1, 2, 3]], [[[1, 2], [2, 3]]]), ([[9]], [[]])], True),
        }
    ),
    {
        "correct": ("def pairs(a):\n    return [[x, y] for x, y in zip(a, a[1:])]", 1.0),
        "tuples": ("def pairs(a):\n    return list(zip(a, a[1:]))", 1.0),
        "wrong_shape": ("def pairs(a):\n    return [a[:2]] if len(a) > 1 else [a]", 0.0),
        "wrong": ("def pairs(a):\n    return a", 0.0),
    },
    kind="call",
    fn="pairs",
)
add(
    "open_r1",
    "verification_info",
    open_r1(
        json.dumps({"language": "Python", "test_cases": call_cases("shout", [(["hi"], ["HI!"]), (["a b"], ["A B!"])])})
    ),
    {
        "correct": ("def shout(s):\n    return s.upper() + '!'", 1.0),
        "partly": ("def shout(s):\n    return s.upper() + '!' if ' ' not in s else s", 0.5),
        "wrong": ("def shout(s):\n    return s", 0.0),
    },
    kind="call",
    fn="shout",
)
add(
    "open_r1",
    "verification_info",
    open_r1(
        {
            "language": "python3",
            "test_cases": stdin_cases([("4\n", "24\n"), ("0\n", "1\n"), ("20\n", "2432902008176640000\n")]),
        }
    ),
    {
        "math": ("import math\nprint(math.factorial(int(input())))", 1.0),
        "loop_sys_exit": (
            "import sys\nn = int(sys.stdin.read())\nr = 1\nfor i in range(2, n + 1):\n    r *= i\nprint(r)\nsys.exit(0)",
            1.0,
        ),
        "partly": ("n = int(input())\nprint(n * (n - 1) * (n - 2) * (n - 3) if n else 1)", 2 / 3),
        "wrong": ("print(int(input()) ** 2)", 0.0),
    },
)
