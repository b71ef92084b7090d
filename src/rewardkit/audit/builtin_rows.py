"""Small built-in rows per reward kind, audited when no ``--data`` is given."""

from __future__ import annotations

import json
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

# Rows in public datasets' own layouts (our own problems): stdin/stdout programs, a LeetCode-style method, a
# pytest file, and HumanEval's prompt-continuing completion, so the dataset hacks run against each reading.
CODE_DATASET_ROWS: list[dict[str, Any]] = [
    {
        "task": "code",
        "prompt": "Read two integers a and b on one line; print a + b.",
        "input_output": json.dumps({"inputs": ["1 2\n", "10 -4\n", "7 7\n"], "outputs": ["3\n", "6\n", "14\n"]}),
        "solutions": json.dumps(["a, b = map(int, input().split())\nprint(a + b)\n"]),
    },
    {
        "task": "code",
        "prompt": "Read n; print YES when n is even, else NO.",
        "public_tests": {"input": ["4\n"], "output": ["YES\n"]},
        "private_tests": {"input": ["7\n", "0\n"], "output": ["NO\n", "YES\n"]},
        "generated_tests": {"input": ["13\n"], "output": ["NO\n"]},
        "solutions": {"language": [3], "solution": ["print('YES' if int(input()) % 2 == 0 else 'NO')\n"]},
    },
    {
        "task": "code",
        "prompt": "Print the number of words on the input line.",
        "verification_info": {
            "language": "python",
            "test_cases": [
                {"input": "a bc d\n", "output": "3\n", "type": "stdin_stdout", "fn_name": None},
                {"input": "word\n", "output": "1\n", "type": "stdin_stdout", "fn_name": None},
            ],
        },
        "gold_standard_solution": "```python\nprint(len(input().split()))\n```",
    },
    {
        "task": "code",
        "prompt": "Return the list of running sums of nums.",
        "starter_code": "class Solution:\n    def runningSum(self, nums: List[int]) -> List[int]:\n        ",
        "public_test_cases": json.dumps([{"input": "[1, 2, 3]", "output": "[1, 3, 6]", "testtype": "functional"}]),
        "private_test_cases": json.dumps(
            [
                {"input": "[]", "output": "[]", "testtype": "functional"},
                {"input": "[5, -5]", "output": "[5, 0]", "testtype": "functional"},
            ]
        ),
        "metadata": json.dumps({"func_name": "runningSum"}),
        "solution": "class Solution:\n    def runningSum(self, nums):\n        out, total = [], 0\n"
        "        for n in nums:\n            total += n\n            out.append(total)\n        return out\n",
    },
    {
        "task": "code",
        "prompt": "Write a function `count_upper(s)` counting the upper-case letters of s.",
        "test": "from solution import count_upper\n\n\ndef test_mixed():\n    assert count_upper('aBcD') == 2\n\n\n"
        "def test_none():\n    assert count_upper('abc') == 0\n\n\n"
        "def test_empty():\n    assert count_upper('') == 0\n",
        "solution": "def count_upper(s):\n    return sum(c.isupper() for c in s)\n",
    },
    {
        "task": "code",
        "prompt": 'def triple(x: int) -> int:\n    """Return three times x."""\n',
        "test": "def check(candidate):\n    assert candidate(1) == 3\n    assert candidate(-2) == -6\n"
        "    assert candidate(0) == 0\n",
        "entry_point": "triple",
        "canonical_solution": "    return 3 * x\n",
    },
]

_WEATHER_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": sorted(properties)[:1],
            },
        },
    }
    for name, properties in (
        ("get_weather", {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}),
        ("get_time", {"zone": {"type": "string"}}),
        ("convert_currency", {"amount": {"type": "number"}, "to": {"type": "string"}}),
    )
]
TOOL_CALL_ROWS: list[dict[str, Any]] = [
    {
        "task": "tool_call",
        "prompt": "What is the weather in Paris, in celsius?",
        "tools": json.dumps(_WEATHER_TOOLS),
        "answer": json.dumps([{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}]),
    },
    {
        "task": "tool_call",
        "prompt": "Convert 20 euros to dollars, and tell me the time in Tokyo.",
        "tools": json.dumps(_WEATHER_TOOLS),
        "answer": json.dumps(
            [
                {"name": "convert_currency", "arguments": {"amount": 20, "to": "USD"}},
                {"name": "get_time", "arguments": {"zone": "Asia/Tokyo"}},
            ]
        ),
    },
    {  # BFCL's possible-answer form: alternative values, "" for an argument that may be left out
        "task": "tool_call",
        "prompt": "How warm is it in Berlin?",
        "tools": json.dumps(_WEATHER_TOOLS),
        "answer": json.dumps([{"get_weather": {"city": ["Berlin", "Berlin, Germany"], "unit": ["", "celsius"]}}]),
    },
]

# The math rows with a budget in words (the audit counts words); the runner copies it to the reward's column.
LENGTH_ROWS: list[dict[str, Any]] = [{**row, "task": "length", "budget": 40} for row in MATH_ROWS]

# Instruction-following rows in google/IFEval's layout, with an honest answer that follows every instruction
# and one that answers but ignores them.
IFEVAL_ROWS: list[dict[str, Any]] = [
    {
        "task": "ifeval",
        "prompt": "Write two sentences about rivers. Include the keywords water and bridge. Do not use any commas.",
        "instruction_id_list": ["keywords:existence", "punctuation:no_comma"],
        "kwargs": [{"keywords": ["water", "bridge"]}, {}],
        "audit_correct": "Rivers carry water from the hills down to the sea. A bridge lets people cross them safely.",
        "audit_wrong": "Rivers are long, winding streams that flow downhill to the sea.",
    },
    {
        "task": "ifeval",
        "prompt": "Give three tips for studying. Use exactly 3 markdown bullet points and a title in double angular "
        "brackets, such as <<title>>.",
        "instruction_id_list": ["detectable_format:number_bullet_lists", "detectable_format:title"],
        "kwargs": [{"num_bullets": 3}, {}],
        "audit_correct": "<<Study Tips>>\n* Sleep well before an exam.\n* Review your notes every day.\n"
        "* Test yourself often.",
        "audit_wrong": "Sleep well, review your notes every day and test yourself often.",
    },
    {
        "task": "ifeval",
        "prompt": "Describe a calm morning in at least 25 words, in lowercase letters only, and end with a "
        "postscript starting with P.S.",
        "instruction_id_list": [
            "length_constraints:number_words",
            "change_case:english_lowercase",
            "detectable_content:postscript",
        ],
        "kwargs": [{"num_words": 25, "relation": "at least"}, {}, {"postscript_marker": "P.S."}],
        "audit_correct": "the kettle hums softly while the sun climbs over the quiet street. a cat stretches on the "
        "warm windowsill and the first birds begin to sing outside.\n\np.s. the coffee was perfect.",
        "audit_wrong": "The morning was calm. I drank coffee and watched the sun rise over the street.",
    },
]

BUILTIN_ROWS: dict[str, list[dict[str, Any]]] = {
    "length": LENGTH_ROWS,
    "math": MATH_ROWS,
    "mcq": MCQ_ROWS,
    "code": CODE_ROWS + CODE_DATASET_ROWS,
    "format": MATH_ROWS,
    "judge": MATH_ROWS,
    "tool_call": TOOL_CALL_ROWS,
    "ifeval": IFEVAL_ROWS,
}
