"""Small built-in rows per reward kind, audited when no ``--data`` is given."""

from __future__ import annotations

from typing import Any

MATH_ROWS: list[dict[str, Any]] = [
    {"task": "math", "prompt": "What is 6 times 7?", "answer": "42"},
    {"task": "math", "prompt": "A box holds 12 eggs. How many eggs are in 3 boxes?", "answer": "36"},
    {"task": "math", "prompt": "What is 1/2 + 1/4? Give a fraction.", "answer": r"\frac{3}{4}"},
]

MCQ_ROWS: list[dict[str, Any]] = [
    {
        "task": "mcq",
        "prompt": "What is the capital of France?\n(A) London\n(B) Paris\n(C) Rome\n(D) Berlin",
        "options": ["London", "Paris", "Rome", "Berlin"],
        "answer": "B",
    },
    {
        "task": "mcq",
        "prompt": "Which planet is largest?\n(A) Mars\n(B) Venus\n(C) Jupiter\n(D) Mercury",
        "options": ["Mars", "Venus", "Jupiter", "Mercury"],
        "answer": "C",
    },
    {
        "task": "mcq",
        "prompt": "What is the chemical symbol of gold?\n(A) Au\n(B) Ag\n(C) Gd\n(D) Go",
        "options": ["Au", "Ag", "Gd", "Go"],
        "answer": "A",
    },  # the gold first and last: listing hacks read
    {
        "task": "mcq",
        "prompt": "How many legs has a dog?\n(A) Two\n(B) Three\n(C) Five\n(D) Four",
        "options": ["Two", "Three", "Five", "Four"],
        "answer": "D",
    },  # in order start or end with it
]

CODE_ROWS: list[dict[str, Any]] = [
    {
        "task": "code",
        "prompt": "Write a function `add(a, b)` that returns the sum of two integers.",
        "solution": "def add(a, b):\n    return a + b\n",
        "tests": "assert add(1, 2) == 3\nassert add(0, 0) == 0\nassert add(-4, 1) == -3",
    },
    {
        "task": "code",
        "prompt": "Write a function `is_palindrome(s)` that tells whether a string reads the same backwards.",
        "solution": "def is_palindrome(s):\n    return s == s[::-1]\n",
        "tests": "assert is_palindrome('abba') is True\nassert is_palindrome('abc') is False\n"
        "assert is_palindrome('') is True",
    },
]

BUILTIN_ROWS: dict[str, list[dict[str, Any]]] = {
    "math": MATH_ROWS,
    "mcq": MCQ_ROWS,
    "code": CODE_ROWS,
    "format": MATH_ROWS,
}
