"""Write examples/code_datasets.jsonl: completions for rows in public code datasets' own layouts.

    python examples/make_code_datasets.py

One small problem per layout (our own problems, the datasets' column names and value shapes): APPS
``input_output`` (stdin and call-based), MBPP ``test_list``, HumanEval ``test`` + ``entry_point`` + ``prompt``,
LiveCodeBench ``public_test_cases`` with packed ``private_test_cases`` (stdin and functional), CodeContests
``public_tests``/``private_tests``/``generated_tests``, open-r1 and PrimeIntellect ``verification_info``, KodCode
``test``. Every row carries every column (None where its dataset has none), as a concatenated dataset would;
``examples/code_datasets_spec.yaml`` scores them with no per-dataset settings.
"""

from __future__ import annotations

import base64
import json
import pickle
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
STYLES = ("correct", "partial", "wrong", "chat_correct", "no_code")


def packed(tests: list[dict]) -> str:
    """LiveCodeBench's packing of private tests: base64 of zlib-compressed pickled JSON text."""
    return base64.b64encode(zlib.compress(pickle.dumps(json.dumps(tests), protocol=4), 9)).decode("ascii")


# (dataset, prompt, columns, correct program, partly correct program)
PROBLEMS: list[tuple[str, object, dict, str, str]] = [
    (
        "apps",
        "Read a line of integers and print their sum.",
        {"input_output": json.dumps({"inputs": ["1 2 3\n", "10\n", "-1 1\n"], "outputs": ["6\n", "10\n", "0\n"]})},
        "print(sum(map(int, input().split())))",
        "print(sum(abs(int(x)) for x in input().split()))",
    ),
    (
        "apps",
        "Write `longest(words)` returning the longest word (the first one on a tie).",
        {
            "input_output": json.dumps(
                {
                    "fn_name": "longest",
                    "inputs": [[["a", "abc", "ab"]], [["xy", "zw"]], [["q"]]],
                    "outputs": [["abc"], ["xy"], ["q"]],
                }
            )
        },
        "def longest(words):\n    return max(words, key=len)",
        "def longest(words):\n    return sorted(words, key=len)[-1]",
    ),
    (
        "mbpp",
        "Write a function to count the even numbers in a list.",
        {
            "test_list": [
                "assert count_even([1, 2, 4]) == 2",
                "assert count_even([]) == 0",
                "assert count_even([-2, 3]) == 1",
            ],
            "test_setup_code": "",
        },
        "def count_even(nums):\n    return sum(1 for n in nums if n % 2 == 0)",
        "def count_even(nums):\n    return sum(1 for n in nums if n % 2 == 0 and n > 0)",
    ),
    (
        "humaneval",
        'def clip_all(values: list, limit: int) -> list:\n    """Every value above limit replaced by limit."""\n',
        {
            "test": "def check(candidate):\n    assert candidate([1, 5, 9], 5) == [1, 5, 5]\n"
            "    assert candidate([], 3) == []\n"
            "    assert candidate([-7], -8) == [-8]\n",
            "entry_point": "clip_all",
        },
        "    return [min(v, limit) for v in values]",
        "    return [min(v, limit) for v in values if v >= 0]",
    ),
    (
        "livecodebench",
        "Given a string S, print it with its vowels removed.",
        {
            "public_test_cases": json.dumps([{"input": "banana\n", "output": "bnn\n", "testtype": "stdin"}]),
            "private_test_cases": packed(
                [
                    {"input": "aeiouz\n", "output": "z\n", "testtype": "stdin"},
                    {"input": "rhythm\n", "output": "rhythm\n", "testtype": "stdin"},
                ]
            ),
            "metadata": "{}",
        },
        "print(''.join(c for c in input().strip() if c not in 'aeiou'))",
        "print(input().strip().replace('a', ''))",
    ),
    (
        "livecodebench",
        "Return the number of indices i with nums[i] == i.",
        {
            "public_test_cases": json.dumps([{"input": "[0, 2, 2]", "output": "2", "testtype": "functional"}]),
            "private_test_cases": json.dumps(
                [
                    {"input": "[]", "output": "0", "testtype": "functional"},
                    {"input": "[1, 0]", "output": "0", "testtype": "functional"},
                ]
            ),
            "metadata": json.dumps({"func_name": "fixedPoints"}),
            "starter_code": "class Solution:\n    def fixedPoints(self, nums: List[int]) -> int:\n        ",
        },
        "class Solution:\n    def fixedPoints(self, nums: List[int]) -> int:\n"
        "        return sum(i == v for i, v in enumerate(nums))",
        "class Solution:\n    def fixedPoints(self, nums):\n"
        "        return sum(i == v for i, v in enumerate(nums)) or 1",
    ),
    (
        "codecontests",
        "Given n, print n squared and then n halved.",
        {
            "public_tests": {"input": ["4\n"], "output": ["16\n2.0\n"]},
            "private_tests": {"input": ["3\n"], "output": ["9\n1.500000\n"]},
            "generated_tests": {"input": ["0\n", "-2\n"], "output": ["0\n0.0\n", "4\n-1.0\n"]},
        },
        "n = int(input())\nprint(n * n)\nprint(n / 2)",
        "n = int(input())\nprint(n * n)\nprint(n // 2)",
    ),
    (
        "open-r1",
        "Print the input line in upper case.",
        {
            "verification_info": {
                "language": "python",
                "test_cases": [
                    {"fn_name": None, "input": "abc\n", "output": "ABC\n", "type": "stdin_stdout"},
                    {"fn_name": None, "input": "Hi there\n", "output": "HI THERE\n", "type": "stdin_stdout"},
                ],
            }
        },
        "print(input().upper())",
        "line = input()\nprint(line if ' ' in line else line.upper())",
    ),
    (
        "primeintellect",
        "Write `is_leap(year)`: True for a leap year.",
        {
            "verification_info": json.dumps(
                {
                    "language": "python",
                    "test_cases": [
                        {"fn_name": "is_leap", "input": [2024], "output": [True], "type": "function_call"},
                        {"fn_name": "is_leap", "input": [1900], "output": [False], "type": "function_call"},
                        {"fn_name": "is_leap", "input": [2000], "output": [True], "type": "function_call"},
                    ],
                }
            )
        },
        "def is_leap(year):\n    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)",
        "def is_leap(year):\n    return year % 4 == 0",
    ),
    (
        "kodcode",
        "Write `chunk(items, size)` splitting a list into chunks of at most size items.",
        {
            "test": "from solution import chunk\nimport pytest\n\n\n"
            "def test_even():\n    assert chunk([1, 2, 3, 4], 2) == [[1, 2], [3, 4]]\n\n\n"
            "def test_rest():\n    assert chunk([1, 2, 3], 2) == [[1, 2], [3]]\n\n\n"
            "def test_bad_size():\n    with pytest.raises(ValueError):\n        chunk([1], 0)\n",
            "test_info": [{"function_name": "chunk", "parameter_list": "(items, size)"}],
        },
        "def chunk(items, size):\n    if size < 1:\n        raise ValueError(size)\n"
        "    return [items[i:i + size] for i in range(0, len(items), size)]",
        "def chunk(items, size):\n    return [items[i:i + size] for i in range(0, len(items) - size + 1, size)]",
    ),
]


def completion(style: str, good: str, partial: str) -> object:
    fence = "```python\n{}\n```"
    if style == "correct":
        return "Here is a solution.\n\n" + fence.format(good)
    if style == "partial":
        return fence.format(partial)
    if style == "wrong":
        return fence.format("print(-1)\n\ndef _unused():\n    return None")
    if style == "chat_correct":
        return [{"role": "assistant", "content": fence.format(good)}]
    return "I would read the input and work out the answer carefully."


def make_rows() -> list[dict]:
    columns = sorted({key for _, _, cols, _, _ in PROBLEMS for key in cols})
    rows = []
    for index, (dataset, prompt, cols, good, partial) in enumerate(PROBLEMS):
        for style in STYLES:
            answer = completion(style, good, partial)
            row = {key: cols.get(key) for key in columns}
            row.update(
                id=f"{dataset}-{index:02d}-{style}",
                task="code",
                dataset=dataset,
                style=style,
                prompt=prompt if isinstance(answer, str) else [{"role": "user", "content": prompt}],
                completion=answer,
            )
            rows.append(row)
    return rows


def main(out_dir: Path = HERE) -> int:
    rows = make_rows()
    with (out_dir / "code_datasets.jsonl").open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
    return len(rows)


if __name__ == "__main__":
    print(f"wrote {main()} samples to examples/code_datasets.jsonl")
