"""Write the bundled example samples (deterministic: same files on every run).

    python examples/make_examples.py            # writes examples/{math,mcq,mixed,code}.jsonl

Each row is one completion a policy model might have produced, with the dataset columns a GRPO
dataset would carry: ``prompt``, ``completion`` (a string, or chat messages), ``answer`` (the
reference), ``options`` for MCQ, ``task``, and ``style`` (which kind of completion it is, for reading
the scored output: correct, wrong, hedged, unformatted, chat, think-block, ...).
"""

from __future__ import annotations

import json
import math
import random
from fractions import Fraction
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEED = 20240611


def latex(value: Fraction) -> str:
    if value.denominator == 1:
        return str(value.numerator)
    sign = "-" if value < 0 else ""
    return rf"{sign}\frac{{{abs(value.numerator)}}}{{{value.denominator}}}"


def math_problems(rng: random.Random, count: int) -> list[tuple[str, str, Fraction, str]]:
    """(question, reference, value, worked reasoning) tuples of grade-school to high-school math."""
    out = []
    makers = [
        lambda: _muffins(rng),
        lambda: _linear(rng),
        lambda: _percent(rng),
        lambda: _simplify(rng),
        lambda: _triangular(rng),
        lambda: _speed(rng),
    ]
    for i in range(count):
        out.append(makers[i % len(makers)]())
    return out


def _muffins(rng):
    a, b, c = rng.randint(12, 90), rng.randint(12, 90), rng.randint(2, 9)
    total = (a + b) * c
    q = (
        f"A bakery sells {a} muffins in the morning and {b} in the afternoon, every day for {c} days. "
        f"How many muffins does it sell in total?"
    )
    why = f"Each day it sells {a} + {b} = {a + b} muffins. Over {c} days that is {a + b} * {c} = {total}."
    return q, str(total), Fraction(total), why


def _linear(rng):
    a, x = rng.randint(2, 9), Fraction(rng.randint(-20, 20), rng.choice([1, 1, 2, 3]))
    b = rng.randint(-30, 30)
    c = a * x + b
    sign = f"+ {b}" if b >= 0 else f"- {-b}"
    q = f"Solve for $x$: ${a}x {sign} = {latex(c)}$."
    why = f"Move the constant term to the right-hand side: {a}x = {latex(c - b)}. Divide by {a}: x = {latex(x)}."
    return q, latex(x), x, why


def _percent(rng):
    p, n = rng.choice([5, 10, 12, 15, 20, 25, 30, 40, 75]), rng.randint(2, 60) * 20
    value = Fraction(p * n, 100)
    q = f"What is {p}% of {n}?"
    why = f"{p}% of {n} is {p}/100 * {n} = {latex(value)}."
    return q, latex(value), value, why


def _simplify(rng):
    num, den, k = rng.randint(1, 12), rng.randint(13, 30), rng.randint(2, 9)
    value = Fraction(num, den)
    q = rf"Simplify $\frac{{{num * k}}}{{{den * k}}}$ to lowest terms."
    g = math.gcd(num * k, den * k)
    why = f"The greatest common divisor of {num * k} and {den * k} is {g}; dividing both by it gives {latex(value)}."
    return q, latex(value), value, why


def _triangular(rng):
    n = rng.randint(10, 200)
    value = n * (n + 1) // 2
    q = f"What is the sum of the first {n} positive integers?"
    why = f"The sum 1 + 2 + ... + n equals n(n+1)/2, so it is {n} * {n + 1} / 2 = {value}."
    return q, str(value), Fraction(value), why


def _speed(rng):
    km, hours = rng.randint(3, 40) * 15, rng.choice([2, 3, 4, 5, 6])
    value = Fraction(km, hours)
    q = f"A train travels {km} km in {hours} hours at constant speed. What is its speed in km/h?"
    why = f"Speed is distance over time: {km} / {hours} = {latex(value)}."
    return q, latex(value), value, why


def wrong_value(rng: random.Random, value: Fraction) -> Fraction:
    return value + rng.choice([-3, -2, -1, 1, 2, 10]) if value.denominator == 1 else value * 2


MATH_STYLES = [
    "correct_tagged",
    "correct_boxed",
    "correct_decimal",
    "wrong_tagged",
    "hedged",
    "unformatted",
    "chat_correct",
    "think_block",
    "empty_answer_tag",
    "trailing_text",
    "repetitive",
    "no_answer",
]


def math_completion(style: str, rng: random.Random, ref: str, value: Fraction, why: str):
    wrong = latex(wrong_value(rng, value))
    if style == "correct_tagged":
        return f"<think>{why}</think>\n<answer>\\boxed{{{ref}}}</answer>"
    if style == "correct_boxed":
        return f"{why} So the answer is $\\boxed{{{ref}}}$."
    if style == "correct_decimal":
        shown = f"{float(value):.6g}" if (value * 1000).denominator == 1 else ref
        return f"<think>{why}</think><answer>\\boxed{{{shown}}}</answer>"
    if style == "wrong_tagged":
        return f"<think>I add the numbers up quickly.</think>\n<answer>\\boxed{{{wrong}}}</answer>"
    if style == "hedged":
        first, second = (ref, wrong) if rng.random() < 0.5 else (wrong, ref)
        return f"<think>{why}</think><answer>It is either \\boxed{{{first}}} or \\boxed{{{second}}}.</answer>"
    if style == "unformatted":
        return f"{why}\nThe answer is {ref}."
    if style == "chat_correct":
        return [{"role": "assistant", "content": f"<think>{why}</think><answer>\\boxed{{{ref}}}</answer>"}]
    if style == "think_block":
        return [{"role": "assistant", "reasoning_content": why, "content": f"<answer>\\boxed{{{ref}}}</answer>"}]
    if style == "empty_answer_tag":
        return f"<think>{why}</think><answer></answer>"
    if style == "trailing_text":
        return f"<think>{why}</think><answer>\\boxed{{{ref}}}</answer> Let me know if you need anything else!"
    if style == "repetitive":
        return "<think>" + "Let me check the numbers again. " * 40 + f"</think><answer>\\boxed{{{ref}}}</answer>"
    if style == "no_answer":
        return "I am not sure how to solve this problem."
    raise ValueError(style)


MCQ_BANK = [
    ("What is the capital of France?", ["London", "Paris", "Rome", "Berlin"], "B"),
    ("Which planet is known as the Red Planet?", ["Venus", "Jupiter", "Mars", "Mercury"], "C"),
    ("What is the chemical symbol for gold?", ["Au", "Ag", "Gd", "Go"], "A"),
    ("How many chambers does the human heart have?", ["Two", "Three", "Five", "Four"], "D"),
    ("Which gas do plants absorb for photosynthesis?", ["Oxygen", "Carbon dioxide", "Nitrogen", "Helium"], "B"),
    ("What is the largest ocean on Earth?", ["Atlantic", "Indian", "Pacific", "Arctic"], "C"),
    ("Who wrote 'Pride and Prejudice'?", ["Jane Austen", "Emily Bronte", "Mary Shelley", "George Eliot"], "A"),
    ("What is the boiling point of water at sea level in Celsius?", ["90", "110", "120", "100"], "D"),
    ("Which data structure is last-in, first-out?", ["Queue", "Stack", "Heap", "Tree"], "B"),
    ("What is the derivative of sin(x)?", ["-cos(x)", "tan(x)", "cos(x)", "-sin(x)"], "C"),
    ("Which element has atomic number 1?", ["Hydrogen", "Helium", "Lithium", "Carbon"], "A"),
    ("What is the time complexity of binary search?", ["O(n)", "O(n log n)", "O(1)", "O(log n)"], "D"),
    ("Which continent is Kenya in?", ["Asia", "Africa", "Europe", "South America"], "B"),
    ("What is the powerhouse of the cell?", ["Nucleus", "Ribosome", "Mitochondrion", "Golgi apparatus"], "C"),
    ("Which language is primarily spoken in Brazil?", ["Portuguese", "Spanish", "French", "English"], "A"),
    ("What is 7 multiplied by 8?", ["54", "64", "48", "56"], "D"),
    ("Which organ produces insulin?", ["Liver", "Pancreas", "Kidney", "Spleen"], "B"),
    ("In which year did World War II end?", ["1939", "1942", "1945", "1950"], "C"),
    ("What is the SI unit of force?", ["Newton", "Joule", "Watt", "Pascal"], "A"),
    ("Which is a prime number?", ["21", "27", "33", "29"], "D"),
    ("What is the hardest natural material?", ["Quartz", "Diamond", "Granite", "Iron"], "B"),
    ("Which protocol secures web traffic?", ["FTP", "SMTP", "HTTPS", "Telnet"], "C"),
    ("What is the freezing point of water in Fahrenheit?", ["32", "0", "100", "212"], "A"),
    ("Which animal is a mammal?", ["Shark", "Eagle", "Frog", "Dolphin"], "D"),
    ("Who proposed the theory of general relativity?", ["Newton", "Einstein", "Bohr", "Curie"], "B"),
]

MCQ_STYLES = [
    "correct_tagged",
    "correct_statement",
    "option_text",
    "wrong",
    "hedged",
    "chat_correct",
    "think_block",
    "unformatted_refusal",
]


def mcq_prompt(question: str, options: list[str]) -> str:
    lines = [question] + [f"({chr(65 + i)}) {text}" for i, text in enumerate(options)]
    return "\n".join(lines) + "\nThink step by step, then give the letter of the answer."


def mcq_completion(style: str, rng: random.Random, options: list[str], gold: str):
    index = ord(gold) - 65
    wrong = rng.choice([chr(65 + i) for i in range(len(options)) if i != index])
    why = f"Going through the options, {options[index]} is the one that fits."
    if style == "correct_tagged":
        return f"<think>{why}</think>\n<answer>{gold}</answer>"
    if style == "correct_statement":
        return f"{why}\nThe answer is ({gold})."
    if style == "option_text":
        return f"<think>{why}</think><answer>{options[index]}</answer>"
    if style == "wrong":
        return f"<think>I recall it is option {wrong}.</think>\n<answer>{wrong}</answer>"
    if style == "hedged":
        pair = sorted([gold, wrong])
        return f"<think>Not sure.</think><answer>{pair[0]} or {pair[1]}</answer>"
    if style == "chat_correct":
        return [{"role": "assistant", "content": f"<think>{why}</think><answer>{gold}</answer>"}]
    if style == "think_block":
        return [{"role": "assistant", "reasoning_content": why, "content": f"<answer>{gold}</answer>"}]
    if style == "unformatted_refusal":
        return "None of these options look right to me."
    raise ValueError(style)


CODE_TASKS = [
    (
        "Write a function `add(a, b)` that returns the sum of two integers.",
        "add",
        "def add(a, b):\n    return a + b",
        "def add(a, b):\n    return a + b if a >= 0 else a - b",
        ["add(1, 2) == 3", "add(0, 0) == 0", "add(-4, 1) == -3", "add(10, 5) == 15"],
    ),
    (
        "Write a function `is_palindrome(s)` that tells whether a string reads the same backwards.",
        "is_palindrome",
        "def is_palindrome(s):\n    return s == s[::-1]",
        "def is_palindrome(s):\n    return s[0] == s[-1]",
        ["is_palindrome('racecar')", "not is_palindrome('abca')", "is_palindrome('a')", "not is_palindrome('abcda')"],
    ),
    (
        "Write a function `fib(n)` returning the n-th Fibonacci number (fib(0) = 0, fib(1) = 1).",
        "fib",
        "def fib(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a",
        "def fib(n):\n    return n if n < 3 else fib(n - 1) + fib(n - 2)",
        ["fib(0) == 0", "fib(1) == 1", "fib(2) == 1", "fib(10) == 55"],
    ),
    (
        "Write a function `count_vowels(s)` that counts the vowels (a, e, i, o, u; any case) in a string.",
        "count_vowels",
        "def count_vowels(s):\n    return sum(ch in 'aeiou' for ch in s.lower())",
        "def count_vowels(s):\n    return sum(ch in 'aeiou' for ch in s)",
        [
            "count_vowels('hello') == 2",
            "count_vowels('HELLO') == 2",
            "count_vowels('xyz') == 0",
            "count_vowels('Audio') == 4",
        ],
    ),
    (
        "Write a function `max_of(xs)` that returns the largest element of a non-empty list.",
        "max_of",
        "def max_of(xs):\n    best = xs[0]\n    for x in xs:\n        if x > best:\n"
        "            best = x\n    return best",
        "def max_of(xs):\n    return sorted(xs)[len(xs) // 2]",
        ["max_of([3, 1, 2]) == 3", "max_of([-5, -2, -9]) == -2", "max_of([7]) == 7", "max_of([1, 9, 2, 8]) == 9"],
    ),
]

CODE_STYLES = [
    "correct",
    "partial",
    "chat_correct",
    "syntax_error",
    "no_code",
    "think_then_code",
    "wrong",
    "infinite_loop",
]


def code_completion(style: str, good: str, buggy: str):
    fence = "```python\n{}\n```"
    if style == "correct":
        return "Here is my solution:\n\n" + fence.format(good)
    if style == "partial":
        return fence.format(buggy)
    if style == "chat_correct":
        return [{"role": "assistant", "content": fence.format(good)}]
    if style == "syntax_error":
        return fence.format(good.replace("):", ")", 1))
    if style == "no_code":
        return "I would loop over the input and keep track of the answer."
    if style == "think_then_code":
        return "<think>Straightforward; handle the edge cases.</think>\n" + fence.format(good)
    if style == "wrong":
        name = good.split("(")[0].removeprefix("def ")
        return fence.format(f"def {name}(*args):\n    return None")
    if style == "infinite_loop":
        name = good.split("(")[0].removeprefix("def ")
        return fence.format(f"def {name}(*args):\n    while True:\n        pass")
    raise ValueError(style)


def make_code(count: int) -> list[dict]:
    rows = []
    for i in range(count):
        question, _entry, good, buggy, checks = CODE_TASKS[i % len(CODE_TASKS)]
        style = CODE_STYLES[(i // len(CODE_TASKS)) % len(CODE_STYLES)]
        completion = code_completion(style, good, buggy)
        tests = "\n".join(f"assert {check}" for check in checks)
        prompt = question if isinstance(completion, str) else [{"role": "user", "content": question}]
        rows.append(
            {
                "id": f"code-{i:03d}",
                "task": "code",
                "style": style,
                "prompt": prompt,
                "completion": completion,
                "tests": tests,
            }
        )
    return rows


def make_math(rng: random.Random, count: int) -> list[dict]:
    rows = []
    for i, (question, ref, value, why) in enumerate(math_problems(rng, count)):
        style = MATH_STYLES[(i * 7) % len(MATH_STYLES)]
        completion = math_completion(style, rng, ref, value, why)
        prompt = question if isinstance(completion, str) else [{"role": "user", "content": question}]
        rows.append(
            {
                "id": f"math-{i:03d}",
                "task": "math",
                "style": style,
                "prompt": prompt,
                "completion": completion,
                "answer": ref,
            }
        )
    return rows


def make_mcq(rng: random.Random, count: int) -> list[dict]:
    rows = []
    for i in range(count):
        question, options, gold = MCQ_BANK[i % len(MCQ_BANK)]
        style = MCQ_STYLES[(i * 3) % len(MCQ_STYLES)]
        completion = mcq_completion(style, rng, options, gold)
        prompt_text = mcq_prompt(question, options)
        prompt = prompt_text if isinstance(completion, str) else [{"role": "user", "content": prompt_text}]
        rows.append(
            {
                "id": f"mcq-{i:03d}",
                "task": "mcq",
                "style": style,
                "prompt": prompt,
                "completion": completion,
                "answer": gold,
                "options": options,
            }
        )
    return rows


def write_jsonl(path: Path, rows: list[dict]) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")


def main(out_dir: Path = HERE) -> dict[str, int]:
    rng = random.Random(SEED)
    math_rows = make_math(rng, 240)
    mcq_rows = make_mcq(rng, 160)
    mixed = [row for pair in zip(math_rows[:100], mcq_rows[:100], strict=False) for row in pair]
    written = {"math.jsonl": math_rows, "mcq.jsonl": mcq_rows, "mixed.jsonl": mixed, "code.jsonl": make_code(40)}
    for name, rows in written.items():
        write_jsonl(out_dir / name, rows)
    return {name: len(rows) for name, rows in written.items()}


if __name__ == "__main__":
    for name, count in main().items():
        print(f"wrote {count} samples to examples/{name}")
