# ruff: noqa: E501  (rows of program text: a program line is clearer unbroken)
"""Held-out KodCode rows: a pytest file that imports the program as ``solution``; each test function is one
test (a parametrized one passes when all its parameter sets do)."""

from __future__ import annotations

from code_heldout_model import add


def kodcode(qid: str, question: str, test: str, names: tuple[str, ...]) -> dict:
    return {
        "version": "v1.0",
        "style": "instruct",
        "subset": "Apps",
        "question_id": qid,
        "question": question,
        "solution": "",
        "test": test,
        "test_info": [
            {
                "docstring": "",
                "function_declaration": f"def {n}(*args):",
                "function_name": n,
                "parameter_list": "(*args)",
            }
            for n in names
        ],
        "gpt_pass_sequence": [1, 0, 1],
        "gpt_pass_trial_num": 2,
        "gpt_difficulty": "medium",
        "gpt_pass_percentage": 0.66,
        "trials": {},
        "chosen_trial": "Trial1",
        "metadata": {"original_instruction": "", "prompt_id": "0", "row_id": 0, "seed_ids": "[]"},
        "benchmark_similarity": 0.3,
        "benchmark_instruction": "",
        "benchmark_task_id": "",
        "filter_reason": "",
    }


PRIMES = """from solution import is_prime, next_prime

def test_small_primes():
    assert is_prime(2)
    assert is_prime(3)
    assert not is_prime(1)

def test_composites():
    assert not is_prime(9)
    assert not is_prime(15)

def test_next_prime():
    assert next_prime(7) == 11
    assert next_prime(1) == 2

def test_next_prime_of_composite():
    assert next_prime(14) == 17
"""
add(
    "kodcode",
    "test",
    kodcode(
        "Apps_9101_I", "Write is_prime(n) and next_prime(n) (the least prime > n).", PRIMES, ("is_prime", "next_prime")
    ),
    {
        "correct": (
            "def is_prime(n):\n    if n < 2:\n        return False\n    i = 2\n    while i * i <= n:\n"
            "        if n % i == 0:\n            return False\n        i += 1\n    return True\n\n"
            "def next_prime(n):\n    n += 1\n    while not is_prime(n):\n        n += 1\n    return n",
            1.0,
        ),
        "partly": (
            "def is_prime(n):\n    return n > 1 and all(n % i for i in range(2, n))\n\n"
            "def next_prime(n):\n    return n + 2 if n % 2 else n + 1",
            0.5,
        ),
        "wrong": ("def is_prime(n):\n    return n % 2 == 1\n\ndef next_prime(n):\n    return n", 0.0),
    },
    kind="module",
    fn=("is_prime", "next_prime"),
)
STAR = """from solution import *
import pytest

def test_basic():
    assert chunk([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]]

def test_exact():
    assert chunk([1, 2], 1) == [[1], [2]]

def test_empty():
    assert chunk([], 3) == []

def test_bad_size():
    with pytest.raises(ValueError):
        chunk([1], 0)
"""
add(
    "kodcode",
    "test",
    kodcode("Leetcode_9102_I", "Split a list into chunks of size k; k < 1 raises ValueError.", STAR, ("chunk",)),
    {
        "correct": (
            "def chunk(items, k):\n    if k < 1:\n        raise ValueError('k must be positive')\n"
            "    return [items[i:i + k] for i in range(0, len(items), k)]",
            1.0,
        ),
        "no_check": (
            "def chunk(items, k):\n    if k < 1:\n        return []\n    return [items[i:i + k] for i in range(0, len(items), k)]",
            0.75,
        ),
        "wrong": ("def chunk(items, k):\n    return [items]", 0.0),
    },
    kind="module",
    fn=("chunk",),
)
PARAM = """import pytest
from solution import (
    to_roman,
    from_roman,
)


@pytest.mark.parametrize("n, text", [(1, "I"), (4, "IV"), (9, "IX"), (14, "XIV"), (1994, "MCMXCIV")])
def test_to_roman(n, text):
    assert to_roman(n) == text


@pytest.mark.parametrize("text, n", [("III", 3), ("LVIII", 58)])
def test_from_roman(text, n):
    assert from_roman(text) == n


def test_round_trip():
    for n in range(1, 50):
        assert from_roman(to_roman(n)) == n
"""
_ROMAN = (
    "PAIRS = [(1000, 'M'), (900, 'CM'), (500, 'D'), (400, 'CD'), (100, 'C'), (90, 'XC'), (50, 'L'), (40, 'XL'),\n"
    "         (10, 'X'), (9, 'IX'), (5, 'V'), (4, 'IV'), (1, 'I')]\n\n"
    "def to_roman(n):\n    out = ''\n    for v, s in PAIRS:\n        while n >= v:\n            out += s\n"
    "            n -= v\n    return out\n\n"
    "def from_roman(text):\n    values = dict((s, v) for v, s in PAIRS if len(s) == 1)\n    total = 0\n"
    "    for a, b in zip(text, text[1:] + ' '):\n        v = values[a]\n"
    "        total += -v if b != ' ' and values[b] > v else v\n    return total"
)
add(
    "kodcode",
    "test",
    kodcode("Taco_9103_I", "Convert integers to and from Roman numerals.", PARAM, ("to_roman", "from_roman")),
    {
        "correct": (_ROMAN, 1.0),
        "no_subtractive": (
            _ROMAN.replace("(900, 'CM'), ", "")
            .replace("(90, 'XC'), ", "")
            .replace("(9, 'IX'), ", "")
            .replace("(4, 'IV'), ", "")
            .replace("(400, 'CD'), ", "")
            .replace("(40, 'XL'), ", ""),
            2 / 3,
        ),
        "wrong": ("def to_roman(n):\n    return 'I' * n\n\ndef from_roman(text):\n    return len(text)", 1 / 3),
    },
    kind="module",
    fn=("to_roman", "from_roman"),
)
MODULE = """import solution


def test_mean():
    assert solution.mean([1, 2, 3]) == 2


def test_mean_float():
    assert solution.mean([1, 2]) == pytest.approx(1.5)


def test_median_odd():
    assert solution.median([3, 1, 2]) == 2


def test_median_even():
    assert solution.median([4, 1, 3, 2]) == 2.5


import pytest
"""
add(
    "kodcode",
    "test",
    kodcode("Prefill_9104_I", "Write mean(xs) and median(xs).", MODULE, ("mean", "median")),
    {
        "correct": (
            "def mean(xs):\n    return sum(xs) / len(xs)\n\n\ndef median(xs):\n    s = sorted(xs)\n    m = len(s) // 2\n"
            "    return s[m] if len(s) % 2 else (s[m - 1] + s[m]) / 2",
            1.0,
        ),
        "partly": (
            "def mean(xs):\n    return sum(xs) / len(xs)\n\n\ndef median(xs):\n    return sorted(xs)[len(xs) // 2]",
            0.75,
        ),
        "wrong": ("def mean(xs):\n    return sum(xs) // len(xs)\n\n\ndef median(xs):\n    return xs[0]", 0.25),
    },
    kind="module",
    fn=("mean", "median"),
)
CLASSY = """from solution import Stack


class TestStack:
    def test_push_pop(self):
        s = Stack()
        s.push(1)
        s.push(2)
        assert s.pop() == 2
        assert s.pop() == 1

    def test_empty(self):
        s = Stack()
        assert s.is_empty()

    def test_pop_empty_raises(self):
        s = Stack()
        try:
            s.pop()
        except IndexError:
            return
        assert False, "pop on an empty stack must raise IndexError"
"""
add(
    "kodcode",
    "test",
    kodcode("Algorithm_9105_I", "Implement a Stack class with push, pop and is_empty.", CLASSY, ("Stack",)),
    {
        "correct": (
            "class Stack:\n    def __init__(self):\n        self.items = []\n\n    def push(self, x):\n"
            "        self.items.append(x)\n\n    def pop(self):\n        return self.items.pop()\n\n"
            "    def is_empty(self):\n        return not self.items",
            1.0,
        ),
        "fifo": (
            "class Stack:\n    def __init__(self):\n        self.items = []\n\n    def push(self, x):\n"
            "        self.items.append(x)\n\n    def pop(self):\n        return self.items.pop(0)\n\n"
            "    def is_empty(self):\n        return not self.items",
            2 / 3,
            "runtime_error",  # pop(0) raised, as the test wanted; the verifier's status names any raise
        ),
        "wrong": (
            "class Stack:\n    def push(self, x):\n        pass\n\n    def pop(self):\n        return None\n\n"
            "    def is_empty(self):\n        return False",
            0.0,
        ),
    },
    kind="module",
    fn=("Stack",),
)
FILES = """from solution import count_lines


def test_counts_lines(tmp_path):
    p = tmp_path / "a.txt"
    p.write_text("x\\ny\\nz\\n")
    assert count_lines(str(p)) == 3


def test_empty_file(tmp_path):
    p = tmp_path / "b.txt"
    p.write_text("")
    assert count_lines(str(p)) == 0
"""
add(
    "kodcode",
    "test",
    kodcode("Filter_9106_I", "Count the lines of a text file.", FILES, ("count_lines",)),
    {
        "correct": ("def count_lines(path):\n    with open(path) as f:\n        return sum(1 for _ in f)", 1.0),
        "partly": ("def count_lines(path):\n    with open(path) as f:\n        return f.read().count('\\n') or 1", 0.5),
        "wrong": ("def count_lines(path):\n    return len(path)", 0.0),
    },
    kind="module",
    fn=("count_lines",),
)
