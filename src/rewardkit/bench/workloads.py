"""Generated benchmark inputs: math answers, multiple-choice completions and a mixed dataset.

Every generator takes a seed and gives fresh values per seed, so no cache (rewardkit's verdict memo, the
math workers' comparison cache) serves a timed run from an earlier one.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

QUESTIONS = [
    (["Paris", "London", "Berlin", "Madrid"], "the capital of the United Kingdom"),
    (["Venus", "Mars", "Jupiter", "Saturn"], "the largest planet of the solar system"),
    (["mitochondria", "ribosome", "nucleus", "chloroplast"], "where photosynthesis happens"),
    (["1789", "1815", "1914", "1945"], "the year the Second World War ended"),
    (["oxygen", "nitrogen", "argon", "carbon dioxide"], "the main gas of Earth's atmosphere"),
]
REASONING = [
    "Let me consider each option in turn. ",
    "Option A does not fit the description, and neither does D on closer inspection. ",
    "Recall the basic facts from the textbook: the definition settles most of the choices. ",
    "Some of the options are common distractors that sound plausible but are wrong. ",
    "Comparing the remaining candidates carefully, only one matches every part of the question. ",
]
FINALS = [
    "The answer is ({letter}).",
    "Answer: {letter}",
    "**Final answer: {letter}**",
    "\\boxed{{{letter}}}",
    "<answer>{letter}</answer>",
    "So {letter} is the correct answer.",
    "The answer is {text}.",
    "I'll go with {letter}.",
    "{letter}) {text}",
    "The answer is {letter} or {other}.",
]


def math_rows(samples: int, seed: int, verbatim: bool) -> list[dict[str, Any]]:
    """Tagged boxed answers to generated fractions, one in four wrong. ``verbatim``: written like the
    reference (settled without a symbolic comparison); else in an equal but different form
    (``\\frac{6}{4}`` for ``\\frac{3}{2}``, ``0.75`` for ``\\frac{3}{4}``)."""
    rng = random.Random(seed)
    rows = []
    for i in range(samples):
        value = Fraction(rng.randint(-(10**6), 10**6), rng.choice([1, 2, 4, 5, 8, 3, 7]))
        shown = value + 1 if i % 4 == 3 else value
        k = rng.randint(2, 9)
        if verbatim:
            form = _latex(shown)
        elif shown.denominator in (2, 4, 5, 8) and i % 2:
            form = format(float(shown), "f").rstrip("0").rstrip(".")
        else:
            form = rf"\frac{{{shown.numerator * k}}}{{{shown.denominator * k}}}"
        rows.append(
            {
                "completion": f"<think>work</think><answer>\\boxed{{{form}}}</answer>",
                "answer": _latex(value),
                "task": "math",
            }
        )
    return rows


def _latex(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else rf"\frac{{{value.numerator}}}{{{value.denominator}}}"


def mcq_rows(samples: int, seed: int, group: int = 8) -> list[dict[str, Any]]:
    """Chain-of-thought answers (200-700 characters) to four-option questions, in ten answer formats (one a
    hedge); about a third wrong. Rows come in GRPO groups of ``group`` completions per question."""
    rng = random.Random(seed)
    rows = []
    for i in range(samples):
        options, topic = QUESTIONS[(i // group) % len(QUESTIONS)]
        gold = rng.randrange(4)
        chosen = gold if rng.random() < 0.65 else rng.randrange(4)
        letter, other = "ABCD"[chosen], "ABCD"[(chosen + 1) % 4]
        steps = "".join(rng.choice(REASONING) for _ in range(rng.randint(2, 7)))
        final = rng.choice(FINALS).format(letter=letter, text=options[chosen], other=other)
        completion = f"We need {topic} (seed {seed}, sample {i}). {steps}\n\n{final}"
        rows.append({"completion": completion, "answer": "ABCD"[gold], "options": options, "task": "mcq"})
    return rows


CODE_TASKS = [
    ("def add(a, b):\n    return a + b\n", "assert add(1, 2) == 3\nassert add(-4, 1) == -3"),
    ("def rev(s):\n    return s[::-1]\n", "assert rev('ab') == 'ba'\nassert rev('') == ''"),
    ("def fact(n):\n    return 1 if n < 2 else n * fact(n - 1)\n", "assert fact(5) == 120\nassert fact(0) == 1"),
    ("def evens(xs):\n    return [x for x in xs if x % 2]\n", "assert evens([1, 2, 3, 4]) == [2, 4]"),  # wrong
]


def mixed_rows(samples: int, code_share: float, seed: int) -> list[dict[str, Any]]:
    """Math, MCQ and code rows interleaved; ``code_share`` of them code (each costs a sandbox run), the
    rest split evenly between math (half needing a symbolic comparison) and MCQ."""
    rng = random.Random(seed)
    code = round(samples * code_share)
    math = (samples - code) // 2
    pool = (
        math_rows(math // 2, seed, False)
        + math_rows(math - math // 2, seed + 1, True)
        + mcq_rows(samples - code - math, seed + 2)
    )
    for i in range(code):
        program, tests = CODE_TASKS[i % len(CODE_TASKS)]
        pool.append({"completion": f"```python\n{program}# run {seed}-{i}\n```", "tests": tests, "task": "code"})
    rng.shuffle(pool)
    return pool


MIXED_SPEC: dict[str, Any] = {
    "name": "mixed_bench",
    "combine": "sum",
    "terms": [
        {"reward": "math_accuracy", "where": {"task": "math"}},
        {"reward": "mcq_accuracy", "where": {"task": "mcq"}},
        {"reward": "code_pass_rate", "where": {"task": "code"}, "params": {"sandbox": "local", "wall_time": 5}},
    ],
}
