"""Rows in the exact column layouts of public code datasets, with programs and the verdict each deserves.

Our own problems and programs, written to each dataset's layout (column names, JSON-string vs nested
columns, packed tests): APPS, TACO, MBPP (full and sanitized), HumanEval, LiveCodeBench, CodeContests,
open-r1 and PrimeIntellect ``verification_info``, KodCode. Each row comes with correct programs (reading
input in different ways, leaning on what the dataset's grader provides), a partly correct, a wrong, a
crashing and a hanging one. ``CASES`` is the flat list the tests (and the before/after count) run.
"""

from __future__ import annotations

import base64
import json
import pickle
import zlib
from dataclasses import dataclass, field
from typing import Any

HANG = "while True:\n    pass\n"


@dataclass(frozen=True)
class Case:
    dataset: str
    row: dict[str, Any]
    reference_key: str
    program: str
    code: str
    score: float
    status: str = "ok"
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def completion(self) -> str:
        return f"Here is my solution.\n\n```python\n{self.code.strip(chr(10))}\n```\n"

    @property
    def id(self) -> str:
        return f"{self.dataset}-{self.program}"


def packed(tests: list[dict[str, Any]]) -> str:
    """LiveCodeBench's private-test packing: base64 text of zlib-compressed pickled JSON text."""
    return base64.b64encode(zlib.compress(pickle.dumps(json.dumps(tests)))).decode("ascii")


CASES: list[Case] = []


def add(dataset: str, row: dict[str, Any], key: str, programs: dict[str, tuple[str, float, str]], **params: Any):
    for name, (code, score, status) in programs.items():
        CASES.append(Case(dataset, row, key, name, code, score, status, params))


# -- APPS (codeparrot/apps): input_output is a JSON string; fn_name inside it makes a row call-based ------------

APPS_STDIN = {
    "problem_id": 9001,
    "question": "Read n and then n integers; print the largest and the smallest, separated by a space.",
    "solutions": json.dumps(["n = int(input())\na = list(map(int, input().split()))\nprint(max(a), min(a))\n"]),
    "input_output": json.dumps(
        {"inputs": ["3\n1 5 2\n", "1\n-7\n", "4\n2 2 9 2\n"], "outputs": ["5 1\n", "-7 -7\n", "9 2\n"]}
    ),
    "difficulty": "introductory",
    "url": "https://example.invalid/apps/9001",
    "starter_code": "",
}
add(
    "apps_stdin",
    APPS_STDIN,
    "input_output",
    {
        "input": ("n = int(input())\na = list(map(int, input().split()))\nprint(max(a), min(a))", 1.0, "ok"),
        "stdin_read": (
            "import sys\nd = sys.stdin.read().split()\na = list(map(int, d[1:]))\nprint(max(a), min(a))",
            1.0,
            "ok",
        ),
        "buffer": (
            "import sys\nd = sys.stdin.buffer.read().split()\na = [int(x) for x in d[1:]]\nprint(max(a), min(a))",
            1.0,
            "ok",
        ),
        "open0": ("d = open(0).read().split()\na = list(map(int, d[1:]))\nprint(max(a), min(a))", 1.0, "ok"),
        "readline_exit": (
            "import sys\nn = int(sys.stdin.readline())\na = []\nwhile len(a) < n:\n"
            "    a += map(int, sys.stdin.readline().split())\n"
            "print(max(a), min(a))\nexit()",
            1.0,
            "ok",
        ),
        "grader_imports": (
            "d = sys.stdin.read().split()\nprint(max(map(int, d[1:])), min(map(int, d[1:])))",
            1.0,
            "ok",
        ),
        "partly": ("n = int(input())\na = list(map(int, input().split()))\nprint(max(a), max(a))", 1 / 3, "ok"),
        "wrong": ("print(0, 0)", 0.0, "ok"),
        "crash": ("n = int(input())\nraise ValueError('no')", 0.0, "runtime_error"),
        "hang": (HANG, 0.0, "timeout"),
    },
)

APPS_CALL = {
    "problem_id": 9002,
    "question": "Write pair_sums(nums) returning the sums of neighbouring elements, in order.",
    "solutions": json.dumps(["def pair_sums(nums):\n    return [a + b for a, b in zip(nums, nums[1:])]\n"]),
    "input_output": json.dumps(
        {
            "inputs": [[[1, 2, 3]], [[4]], [[0, 0]], [[-1, 5, 5, 2]]],
            "outputs": [[[3, 5]], [[]], [[0]], [[4, 10, 7]]],
            "fn_name": "pair_sums",
        }
    ),
    "difficulty": "interview",
    "url": "https://example.invalid/apps/9002",
    "starter_code": "def pair_sums(nums):\n    ",
}
add(
    "apps_call",
    APPS_CALL,
    "input_output",
    {
        "function": ("def pair_sums(nums):\n    return [a + b for a, b in zip(nums, nums[1:])]", 1.0, "ok"),
        "tuple_result": (
            "def pair_sums(nums):\n    return tuple(nums[i] + nums[i + 1] for i in range(len(nums) - 1))",
            1.0,
            "ok",
        ),
        "solution_class": (
            "class Solution:\n    def pair_sums(self, nums):\n        return [a + b for a, b in zip(nums, nums[1:])]",
            1.0,
            "ok",
        ),
        "grader_typing": (
            "def pair_sums(nums: List[int]) -> List[int]:\n    return [sum(p) for p in zip(nums, nums[1:])]",
            1.0,
            "ok",
        ),
        "partly": (
            "def pair_sums(nums):\n    return [a + b for a, b in zip(nums, nums[1:])] if len(nums) > 2 else [0]",
            0.75,
            "ok",
        ),
        "wrong": ("def pair_sums(nums):\n    return nums", 0.0, "ok"),
        "crash": ("def pair_sums(nums):\n    raise RuntimeError('boom')", 0.0, "runtime_error"),
        "hang": ("def pair_sums(nums):\n" + "    while True:\n        pass", 0.0, "timeout"),
        "misnamed": ("def pairsums(nums):\n    return [a + b for a, b in zip(nums, nums[1:])]", 0.0, "runtime_error"),
    },
)

# -- TACO (BAAI/TACO): lists of lines as stdin, JSON dict keys for integer keys -----------------------------------

TACO_STDIN = {
    "question": "Each test: a line with a word. Print it reversed and its length.",
    "solutions": json.dumps(["w = input().strip()\nprint(w[::-1])\nprint(len(w))\n"]),
    "starter_code": "",
    "input_output": json.dumps(
        {"inputs": [["abc"], ["racecar"], ["xy"]], "outputs": [["cba", "3"], ["racecar", "7"], ["yx", "2  "]]}
    ),
    "difficulty": "EASY",
    "raw_tags": "['String']",
    "name": None,
    "source": "codechef",
    "tags": "['String algorithms']",
    "skill_types": "[]",
    "url": "https://example.invalid/taco/1",
    "Expected Auxiliary Space": None,
    "time_limit": "1 seconds",
    "date": None,
    "picture_num": "0",
    "memory_limit": "256 megabytes",
    "Expected Time Complexity": None,
}
add(
    "taco_stdin",
    TACO_STDIN,
    "input_output",
    {
        "correct": ("w = input().strip()\nprint(w[::-1])\nprint(len(w))", 1.0, "ok"),
        "trailing_spaces": ("w = input().strip()\nprint(w[::-1] + '   ')\nprint(len(w), end='  \\n\\n')", 1.0, "ok"),
        "partly": ("w = input().strip()\nprint(w)\nprint(len(w))", 1 / 3, "ok"),
        "wrong": ("print('?')", 0.0, "ok"),
        "crash": ("import sys\nsys.exit(3)", 0.0, "runtime_error"),
        "hang": (HANG, 0.0, "timeout"),
    },
)

TACO_CALL = {
    "question": "digit_counts(n): a dict from each digit of n to how often it occurs.",
    "solutions": json.dumps(["def digit_counts(n):\n    ..."]),
    "starter_code": "def digit_counts(n):\n\t",
    "input_output": json.dumps(
        {
            "fn_name": "digit_counts",
            "inputs": [[1223], [5], [900]],
            "outputs": [[{"1": 1, "2": 2, "3": 1}], [{"5": 1}], [{"9": 1, "0": 2}]],
        }
    ),
    "difficulty": "EASY",
    "raw_tags": "[]",
    "name": "digit_counts",
    "source": "codewars",
    "tags": "[]",
    "skill_types": "[]",
    "url": "https://example.invalid/taco/2",
    "Expected Auxiliary Space": None,
    "time_limit": None,
    "date": None,
    "picture_num": None,
    "memory_limit": None,
    "Expected Time Complexity": None,
}
add(
    "taco_call",
    TACO_CALL,
    "input_output",
    {
        "int_keys": (
            (
                "def digit_counts(n):\n    out = {}\n    for ch in str(n):\n"
                "        out[int(ch)] = out.get(int(ch), 0) + 1\n    return out"
            ),
            1.0,
            "ok",
        ),
        "str_keys": (
            "from collections import Counter\ndef digit_counts(n):\n    return dict(Counter(str(n)))",
            1.0,
            "ok",
        ),
        "partly": ("def digit_counts(n):\n    return {int(c): 1 for c in str(n)}", 1 / 3, "ok"),
        "wrong": ("def digit_counts(n):\n    return {}", 0.0, "ok"),
        "crash": ("def digit_counts(n):\n    return 1 / 0", 0.0, "runtime_error"),
        "hang": ("import time\ndef digit_counts(n):\n    time.sleep(100)", 0.0, "timeout"),
    },
)

# -- MBPP: test_list is a list of assert strings (full: test_setup_code; sanitized: test_imports) -----------------

MBPP_FULL = {
    "task_id": 9101,
    "text": "Write a function to find the second largest distinct number in a list.",
    "code": "def second_largest(nums):\n    return sorted(set(nums))[-2]",
    "test_list": [
        "assert second_largest([1, 5, 3]) == 3",
        "assert second_largest([10, 10, 9]) == 9",
        "assert second_largest([-1, -2]) == -2",
    ],
    "test_setup_code": "",
    "challenge_test_list": [],
}
add(
    "mbpp",
    MBPP_FULL,
    "test_list",
    {
        "correct": ("def second_largest(nums):\n    return sorted(set(nums))[-2]", 1.0, "ok"),
        "partly": ("def second_largest(nums):\n    return sorted(nums)[-2]", 2 / 3, "ok"),
        "wrong": ("def second_largest(nums):\n    return max(nums)", 0.0, "ok"),
        "crash": ("def second_largest(nums):\n    return nums[99]", 0.0, "runtime_error"),
        "hang": ("def second_largest(nums):\n    while nums:\n        pass", 0.0, "timeout"),
    },
)

MBPP_SANITIZED = {
    "source_file": "example.py",
    "task_id": 9102,
    "prompt": "Write a function that returns the area of a circle of radius r.",
    "code": "import math\ndef circle_area(r):\n    return math.pi * r * r",
    "test_imports": ["import math"],
    "test_list": [
        "assert math.isclose(circle_area(1), 3.14159265, rel_tol=1e-6)",
        "assert math.isclose(circle_area(2), 12.5663706, rel_tol=1e-6)",
        "assert circle_area(0) == 0",
    ],
}
add(
    "mbpp_sanitized",
    MBPP_SANITIZED,
    "test_list",
    {
        "correct": ("import math\ndef circle_area(r):\n    return math.pi * r ** 2", 1.0, "ok"),
        "test_imports": ("def circle_area(r):\n    return math.pi * r * r", 1.0, "ok"),
        "partly": ("def circle_area(r):\n    return 3.14 * r * r", 1 / 3, "ok"),
        "wrong": ("def circle_area(r):\n    return -1", 0.0, "ok"),
        "crash": ("def circle_area(r):\n    raise ValueError(r)", 0.0, "runtime_error"),
        "hang": ("def circle_area(r):\n    while r >= 0:\n        pass", 0.0, "timeout"),
    },
)

# -- HumanEval: test defines check(candidate), entry_point in its own column, completions continue the prompt ----

HUMANEVAL = {
    "task_id": "Own/0",
    "prompt": (
        "from typing import List\n\n\ndef running_max(values: List[int]) -> List[int]:\n"
        '    """The largest value seen so far, at each position.\n    >>> running_max([1, 3, 2])\n'
        '    [1, 3, 3]\n    """\n'
    ),
    "canonical_solution": (
        "    out = []\n    for v in values:\n        out.append(v if not out else max(out[-1], v))\n    return out\n"
    ),
    "test": (
        "\n\nMETADATA = {'author': 'rk', 'dataset': 'test'}\n\n\ndef check(candidate):\n"
        "    assert candidate([1, 3, 2]) == [1, 3, 3]\n    assert candidate([]) == []\n"
        "    assert candidate([5, 4, 6]) == [5, 5, 6]\n"
    ),
    "entry_point": "running_max",
}
add(
    "humaneval",
    HUMANEVAL,
    "test",
    {
        "body_only": (
            "    out = []\n    for v in values:\n        out.append(v if not out else max(out[-1], v))\n    return out",
            1.0,
            "ok",
        ),
        "full_function": (
            "def running_max(values: List[int]) -> List[int]:\n    best, out = None, []\n    for v in values:\n"
            "        best = v if best is None else max(best, v)\n        out.append(best)\n    return out",
            1.0,
            "ok",
        ),
        "partly": ("def running_max(values):\n    return sorted(values)", 1 / 3, "ok"),
        "wrong": ("def running_max(values):\n    return None", 0.0, "ok"),
        "crash": ("def running_max(values):\n    raise IndexError('x')", 0.0, "runtime_error"),
        "hang": ("def running_max(values):\n    while True:\n        pass", 0.0, "timeout"),
    },
)

# -- LiveCodeBench (code_generation_lite): JSON-string public tests, packed private tests, metadata -----------

LCB_STDIN = {
    "question_title": "Digit sum",
    "question_content": "Given N, print the sum of its decimal digits.",
    "platform": "atcoder",
    "question_id": "abc900_a",
    "contest_id": "abc900",
    "contest_date": "2024-01-01T00:00:00",
    "starter_code": "",
    "difficulty": "easy",
    "public_test_cases": json.dumps(
        [
            {"input": "123\n", "output": "6\n", "testtype": "stdin"},
            {"input": "5\n", "output": "5\n", "testtype": "stdin"},
        ]
    ),
    "private_test_cases": packed(
        [
            {"input": "909\n", "output": "18\n", "testtype": "stdin"},
            {"input": "1000\n", "output": "1\n", "testtype": "stdin"},
        ]
    ),
    "metadata": "{}",
}
add(
    "livecodebench_stdin",
    LCB_STDIN,
    "public_test_cases",
    {
        "correct": ("print(sum(int(c) for c in input().strip()))", 1.0, "ok"),
        "grader_imports": ("s = stdin.readline().strip()\nprint(reduce(add, map(int, s)))", 1.0, "ok"),
        "public_only_hardcoded": ("print({'123': 6, '5': 5}.get(input().strip(), 0))", 0.5, "ok"),
        "wrong": ("print(len(input().strip()))", 0.0, "ok"),
        "crash": ("import os\nos._exit(2)", 0.0, "runtime_error"),
        "hang": (HANG, 0.0, "timeout"),
    },
)

LCB_FUNCTIONAL = {
    "question_title": "Add to all",
    "question_content": "Return the list with k added to every element.",
    "platform": "leetcode",
    "question_id": "9901",
    "contest_id": "weekly-contest-900",
    "contest_date": "2024-02-01T00:00:00",
    "starter_code": "class Solution:\n    def addToAll(self, nums: List[int], k: int) -> List[int]:\n        ",
    "difficulty": "easy",
    "public_test_cases": json.dumps([{"input": "[1, 2, 3]\n2", "output": "[3, 4, 5]", "testtype": "functional"}]),
    "private_test_cases": json.dumps(
        [
            {"input": "[]\n7", "output": "[]", "testtype": "functional"},
            {"input": "[-5]\n5", "output": "[0]", "testtype": "functional"},
        ]
    ),
    "metadata": json.dumps({"func_name": "addToAll"}),
}
add(
    "livecodebench_functional",
    LCB_FUNCTIONAL,
    "public_test_cases",
    {
        "solution_class": (
            (
                "class Solution:\n    def addToAll(self, nums: List[int], k: int) -> List[int]:\n"
                "        return [x + k for x in nums]"
            ),
            1.0,
            "ok",
        ),
        "tuple_result": (
            "class Solution:\n    def addToAll(self, nums, k):\n        return tuple(x + k for x in nums)",
            1.0,
            "ok",
        ),
        "deep_recursion": (
            (
                "class Solution:\n    def addToAll(self, nums, k):\n        def go(i):\n"
                "            return [] if i == len(nums) else [nums[i] + k] + go(i + 1)\n"
                "        def depth(n):\n            return 0 if n == 0 else 1 + depth(n - 1)\n"
                "        depth(5000)\n        return go(0)"
            ),
            1.0,
            "ok",
        ),
        "partly": (
            "class Solution:\n    def addToAll(self, nums, k):\n        return [x + k for x in nums] or [k]",
            2 / 3,
            "ok",
        ),
        "wrong": ("class Solution:\n    def addToAll(self, nums, k):\n        return [k]", 0.0, "ok"),
        "crash": ("class Solution:\n    def addToAll(self, nums, k):\n        raise KeyError(k)", 0.0, "runtime_error"),
        "hang": (
            "class Solution:\n    def addToAll(self, nums, k):\n        while True:\n            pass",
            0.0,
            "timeout",
        ),
    },
)

# -- CodeContests (deepmind/code_contests): public/private/generated sets of {"input": [...], "output": [...]} ----

CODECONTESTS = {
    "name": "900_A. Even pairs",
    "description": "Given two integers, print YES when their sum is even, else NO; then their mean.",
    "public_tests": {"input": ["1 3\n"], "output": ["YES\n2.000000\n"]},
    "private_tests": {"input": ["2 3\n", "10 20\n"], "output": ["NO\n2.500000\n", "YES\n15.000000\n"]},
    "generated_tests": {"input": ["0 0\n", "7 8\n"], "output": ["YES\n0.000000\n", "NO\n7.500000\n"]},
    "source": 2,
    "difficulty": 7,
    "solutions": {
        "language": [3],
        "solution": [
            (
                "a, b = map(int, input().split())\nprint('YES' if (a + b) % 2 == 0 else 'NO')\n"
                "print('%.6f' % ((a + b) / 2))\n"
            )
        ],
    },
    "incorrect_solutions": {"language": [], "solution": []},
    "cf_contest_id": 900,
    "cf_index": "A",
    "cf_points": 500.0,
    "cf_rating": 800,
    "cf_tags": ["math"],
    "is_description_translated": False,
    "untranslated_description": "",
    "time_limit": {"seconds": 1, "nanos": 0},
    "memory_limit_bytes": 256000000,
    "input_file": "",
    "output_file": "",
}
add(
    "codecontests",
    CODECONTESTS,
    "public_tests",
    {
        "correct": (
            (
                "a, b = map(int, input().split())\nprint('YES' if (a + b) % 2 == 0 else 'NO')\n"
                "print('%.6f' % ((a + b) / 2))"
            ),
            1.0,
            "ok",
        ),
        "lowercase_one_line": (
            "a, b = map(int, input().split())\nprint('yes' if (a + b) % 2 == 0 else 'no', (a + b) / 2)",
            1.0,
            "ok",
        ),
        "partly": ("a, b = map(int, input().split())\nprint('YES')\nprint((a + b) / 2)", 0.6, "ok"),
        "wrong": ("print('NO')\nprint(0)", 0.0, "ok"),
        "crash": ("a, b = map(int, input().split())\nprint(a // 0)", 0.0, "runtime_error"),
        "hang": (HANG, 0.0, "timeout"),
    },
)

# -- open-r1 / PrimeIntellect verifiable-coding-problems: verification_info -----------------------------------

OPEN_R1 = {
    "source": "codeforces",
    "task_type": "verifiable_code",
    "in_source_id": "900_B",
    "problem": "Print the number of vowels in the given line.",
    "gold_standard_solution": "```python\nprint(sum(c in 'aeiou' for c in input()))\n```",
    "problem_id": "vfc_9001",
    "metadata": {"difficulty": "800", "memory_limit": None, "time_limit": None},
    "verification_info": {
        "language": "python",
        "test_cases": [
            {"fn_name": None, "input": "hello\n", "output": "2\n", "type": "stdin_stdout"},
            {"fn_name": None, "input": "sky\n", "output": "0\n", "type": "stdin_stdout"},
            {"fn_name": None, "input": "aeiou\n", "output": "5\n", "type": "stdin_stdout"},
        ],
    },
}
add(
    "open_r1",
    OPEN_R1,
    "verification_info",
    {
        "correct": ("print(sum(c in 'aeiou' for c in input()))", 1.0, "ok"),
        "partly": ("print(sum(c in 'aeio' for c in input()))", 2 / 3, "ok"),
        "wrong": ("print(-1)", 0.0, "ok"),
        "crash": ("raise SystemExit('bad')", 0.0, "runtime_error"),
        "hang": (HANG, 0.0, "timeout"),
    },
)

PRIME_INTELLECT = {
    "source": "codewars",
    "task_type": "verifiable_code",
    "in_source_id": "cw-9001",
    "prompt": "Write clamp(x, lo, hi) that limits x to the range [lo, hi].",
    "gold_standard_solution": "```python\ndef clamp(x, lo, hi):\n    return max(lo, min(x, hi))\n```",
    "verification_info": str(
        {
            "language": "python",
            "test_cases": [
                {"fn_name": "clamp", "input": [5, 0, 3], "output": [3], "type": "function_call"},
                {"fn_name": "clamp", "input": [-2, 0, 3], "output": [0], "type": "function_call"},
                {"fn_name": "clamp", "input": [1, 0, 3], "output": [1], "type": "function_call"},
                {"fn_name": "clamp", "input": [2.5, 0, 3], "output": [2.5], "type": "function_call"},
            ],
        }
    ),
    "metadata": json.dumps({"difficulty": None}),
    "problem_id": "vfc_9002",
}
add(
    "primeintellect",
    PRIME_INTELLECT,
    "verification_info",
    {
        "correct": ("def clamp(x, lo, hi):\n    return max(lo, min(x, hi))", 1.0, "ok"),
        "partly": ("def clamp(x, lo, hi):\n    return min(x, hi)", 0.75, "ok"),
        "wrong": ("def clamp(x, lo, hi):\n    return lo", 0.25, "ok"),
        "crash": ("def clamp(x, lo, hi):\n    import sys\n    sys.exit(0)", 0.0, "runtime_error"),
        "hang": ("def clamp(x, lo, hi):\n    while True:\n        pass", 0.0, "timeout"),
    },
)

# -- KodCode: a pytest file that imports the program as `solution`, with test_info ---------------------------

KODCODE_TEST = """from solution import merge_intervals
import pytest


def test_merge_overlapping():
    assert merge_intervals([[1, 3], [2, 6], [8, 10]]) == [[1, 6], [8, 10]]


def test_merge_touching():
    assert merge_intervals([[1, 4], [4, 5]]) == [[1, 5]]


def test_empty():
    assert merge_intervals([]) == []


@pytest.mark.parametrize("given, expected", [([[5, 6], [1, 2]], [[1, 2], [5, 6]]), ([[1, 10], [2, 3]], [[1, 10]])])
def test_unsorted(given, expected):
    assert merge_intervals(given) == expected


def test_bad_input():
    with pytest.raises(TypeError):
        merge_intervals(None)


class TestLarge:
    def test_many(self):
        assert merge_intervals([[i, i + 1] for i in range(0, 100, 2)])[0] == [0, 1]


def test_prints_nothing(capsys):
    merge_intervals([[1, 2]])
    assert capsys.readouterr().out == ""
"""
KODCODE = {
    "version": "v1.0",
    "style": "instruct",
    "subset": "Leetcode",
    "question_id": "Leetcode_9001_I",
    "question": "Merge all overlapping intervals and return them sorted by start.",
    "solution": "def merge_intervals(intervals):\n    ...",
    "test": KODCODE_TEST,
    "test_info": [
        {
            "docstring": "Merge overlapping intervals.",
            "function_declaration": "def merge_intervals(intervals):",
            "function_name": "merge_intervals",
            "parameter_list": "(intervals)",
        }
    ],
    "gpt_pass_sequence": [1, 1, 1],
    "gpt_pass_trial_num": 3,
    "gpt_difficulty": "easy",
    "gpt_pass_percentage": 1.0,
    "trials": {},
    "chosen_trial": "Trial1",
    "metadata": {"original_instruction": "", "prompt_id": "00001", "row_id": 1, "seed_ids": "[1]"},
    "benchmark_similarity": 0.4,
    "benchmark_instruction": "",
    "benchmark_task_id": "",
    "filter_reason": "",
}
_MERGE = (
    "def merge_intervals(intervals):\n    out = []\n    for start, end in sorted(intervals):\n"
    "        if out and start <= out[-1][1]:\n            out[-1][1] = max(out[-1][1], end)\n"
    "        else:\n            out.append([start, end])\n    return out"
)
add(
    "kodcode",
    KODCODE,
    "test",
    {
        "correct": (_MERGE, 1.0, "ok"),
        "no_sort": (_MERGE.replace("sorted(intervals)", "intervals"), 5 / 6, "runtime_error"),  # raised (as tested)
        "wrong": ("def merge_intervals(intervals):\n    return intervals", 2 / 6, "ok"),
        "crash": ("def merge_intervals(intervals):\n    raise RuntimeError('no')", 0.0, "runtime_error"),
        "hang": ("def merge_intervals(intervals):\n    while True:\n        pass", 0.0, "timeout"),
        "misnamed": (_MERGE.replace("def merge_intervals", "def merge"), 0.0, "runtime_error"),
    },
)
