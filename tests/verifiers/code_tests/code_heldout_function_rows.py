# ruff: noqa: E501  (rows of program text: a program line is clearer unbroken)
"""Held-out MBPP, HumanEval and KodCode rows, our own problems in those datasets' layouts.

MBPP: each assert of ``test_list`` after ``test_imports`` / ``test_setup_code`` (``challenge_test_list`` is
not part of MBPP's score). HumanEval: the row's ``prompt`` and the completion, then ``check(entry_point)``,
one test per assert. KodCode: the pytest file against the program imported as ``solution``.
"""

from __future__ import annotations

from code_heldout_model import add


def mbpp_full(task_id: int, text: str, tests: list[str], setup: str = "", challenge: list[str] | None = None) -> dict:
    return {
        "task_id": task_id,
        "text": text,
        "code": "",
        "test_list": tests,
        "test_setup_code": setup,
        "challenge_test_list": challenge or [],
    }


def mbpp_sanitized(task_id: int, prompt: str, tests: list[str], imports: list[str] | None = None) -> dict:
    return {
        "source_file": "Benchmark Questions Verification V2.ipynb",
        "task_id": task_id,
        "prompt": prompt,
        "code": "",
        "test_imports": imports or [],
        "test_list": tests,
    }


# -- MBPP ------------------------------------------------------------------------------------------------------

add(
    "mbpp",
    "test_list",
    mbpp_full(
        901,
        "Write a function to drop the vowels of a string.",
        [
            'assert drop_vowels("banana") == "bnn"',
            'assert drop_vowels("sky") == "sky"',
            'assert drop_vowels("AEIOUx") == "x"',
        ],
    ),
    {
        "correct": ("def drop_vowels(s):\n    return ''.join(c for c in s if c.lower() not in 'aeiou')", 1.0),
        "partly": ("def drop_vowels(s):\n    return ''.join(c for c in s if c not in 'aeiou')", 2 / 3),
        "wrong": ("def drop_vowels(s):\n    return s[::-1]", 0.0),
    },
    kind="call",
    fn="drop_vowels",
)
add(
    "mbpp",
    "test_list",
    mbpp_full(
        902,
        "Write a function to find the n-th triangular number.",
        ["assert triangle(1) == 1", "assert triangle(4) == 10", "assert triangle(10) == 55"],
        challenge=["assert triangle(10**6) == 500000500000", "assert triangle(0) == 0"],
    ),
    {
        "formula": ("def triangle(n):\n    return n * (n + 1) // 2", 1.0),
        "fails_challenge_only": ("def triangle(n):\n    return 1 if n == 0 else n * (n + 1) // 2", 1.0),
        "partly": ("def triangle(n):\n    return n * (n + 1) // 2 if n < 5 else 0", 2 / 3),
        "wrong": ("def triangle(n):\n    return n * n", 1 / 3),
    },
    kind="call",
    fn="triangle",
)
add(
    "mbpp",
    "test_list",
    mbpp_sanitized(
        903,
        "Write a function to find the area of a circle of radius r.",
        [
            "assert math.isclose(circle_area(2), 12.566370614359172, rel_tol=0.001)",
            "assert math.isclose(circle_area(1), 3.141592653589793, rel_tol=0.001)",
            "assert math.isclose(circle_area(10), 314.1592653589793, rel_tol=0.001)",
        ],
        ["import math"],
    ),
    {
        "math_pi": ("import math\n\ndef circle_area(r):\n    return math.pi * r ** 2", 1.0),
        "approx_pi": ("def circle_area(r):\n    return 3.1416 * r * r", 1.0),
        "partly": ("def circle_area(r):\n    return 3.14159 * r * r if r < 5 else 300.0", 2 / 3),
        "wrong": ("def circle_area(r):\n    return r * r", 0.0),
    },
    kind="call",
    fn="circle_area",
)
add(
    "mbpp",
    "test_list",
    mbpp_full(
        904,
        "Write a function that returns the widest of the given boxes (objects with a width attribute).",
        [
            "assert widest([Box(3), Box(9), Box(4)]) == 9",
            "assert widest([Box(1)]) == 1",
        ],
        setup="class Box:\n    def __init__(self, width):\n        self.width = width",
    ),
    {
        "correct": ("def widest(boxes):\n    return max(b.width for b in boxes)", 1.0),
        "partly": ("def widest(boxes):\n    return boxes[-1].width", 0.5),
        "wrong": ("def widest(boxes):\n    return 0", 0.0),
    },
    kind="call",
    fn="widest",
)
add(
    "mbpp",
    "test_list",
    mbpp_sanitized(
        905,
        "Write a function to find the shared elements of two tuples.",
        [
            "assert set(shared((3, 4, 5, 6), (5, 7, 4, 10))) == set((4, 5))",
            "assert set(shared((1, 2), (3, 4))) == set()",
            "assert set(shared((11, 12, 14, 13), (17, 15, 14, 13))) == set((13, 14))",
        ],
    ),
    {
        "tuple": ("def shared(a, b):\n    return tuple(set(a) & set(b))", 1.0),
        "list": ("def shared(a, b):\n    return [x for x in a if x in b]", 1.0),
        "partly": ("def shared(a, b):\n    return [x for x in a if x in b][:1]", 1 / 3),
        "wrong": ("def shared(a, b):\n    return a", 0.0),
    },
    kind="call",
    fn="shared",
)
add(
    "mbpp",
    "test_list",
    mbpp_full(
        906,
        "Write a function to swap the two numbers and return them as a tuple.",
        ["assert swap(1, 2) == (2, 1)", "assert swap(0, 0) == (0, 0)", "assert swap(-5, 7) == (7, -5)"],
    ),
    {
        "correct": ("def swap(a, b):\n    return (b, a)", 1.0),
        "list_not_tuple": ("def swap(a, b):\n    return [b, a]", 0.0),
        "misnamed": ("def swap_numbers(a, b):\n    return (b, a)", 0.0, None),
        "partly": ("def swap(a, b):\n    return (b, a) if a >= 0 else (a, b)", 2 / 3),
    },
    kind="call",
    fn="swap",
)
add(
    "mbpp",
    "test_list",
    mbpp_sanitized(
        907,
        "Write a function to count each word of a sentence.",
        [
            "assert Counter(word_count('a b a')) == Counter({'a': 2, 'b': 1})",
            "assert word_count('x') == {'x': 1}",
        ],
        ["from collections import Counter"],
    ),
    {
        "dict": (
            "def word_count(s):\n    out = {}\n    for w in s.split():\n        out[w] = out.get(w, 0) + 1\n    return out",
            1.0,
        ),
        "counter": ("from collections import Counter\n\ndef word_count(s):\n    return dict(Counter(s.split()))", 1.0),
        "partly": ("def word_count(s):\n    return {w: 1 for w in s.split()}", 0.5),
        "wrong": ("def word_count(s):\n    return {}", 0.0),
    },
    kind="call",
    fn="word_count",
)
add(
    "mbpp",
    "test_list",
    mbpp_full(
        908,
        "Write a python function to check whether a number is a perfect square.",
        ["assert is_square(16) == True", "assert is_square(14) == False", "assert is_square(1) == True"],
    ),
    {
        "with_main": (
            'import math\n\ndef is_square(n):\n    """True when n is a perfect square."""\n    r = math.isqrt(n)\n'
            "    return r * r == n\n\n\nif __name__ == '__main__':\n    print(is_square(16), is_square(14))",
            1.0,
        ),
        "partly": ("def is_square(n):\n    return n in (4, 9, 16)", 2 / 3),
        "wrong": ("def is_square(n):\n    return n < 15", 1 / 3),
    },
    kind="call",
    fn="is_square",
)

# -- HumanEval ---------------------------------------------------------------------------------------------------

HE_METADATA = "\n\nMETADATA = {\n    'author': 'rk',\n    'dataset': 'test'\n}\n\n\n"


def humaneval(task: str, prompt: str, entry: str, check_body: str) -> dict:
    return {
        "task_id": f"HeldOut/{task}",
        "prompt": prompt,
        "canonical_solution": "",
        "test": HE_METADATA + "def check(candidate):\n" + check_body,
        "entry_point": entry,
    }


BELOW = (
    "from typing import List\n\n\ndef first_negative_prefix(ops: List[int]) -> int:\n"
    '    """ Return the index at which the running sum of ops first drops below zero, or -1.\n'
    '    >>> first_negative_prefix([1, -2, 3])\n    1\n    """\n'
)
BELOW_BODY = "    total = 0\n    for i, op in enumerate(ops):\n        total += op\n        if total < 0:\n            return i\n    return -1\n"
add(
    "humaneval",
    "test",
    humaneval(
        "0",
        BELOW,
        "first_negative_prefix",
        "    assert candidate([]) == -1\n    assert candidate([1, -2, 3]) == 1\n    assert candidate([-1]) == 0\n"
        "    assert candidate([5, -5, 0, -1]) == 3\n",
    ),
    {
        "body_fenced": (BELOW_BODY, 1.0),
        "raw_body": (BELOW_BODY, 1.0),
        "whole_function": (BELOW + BELOW_BODY, 1.0),
        "partly": ("    return -1 if not ops or ops[0] >= 0 else 0\n", 0.5),
        "wrong": ("    return len(ops)\n", 0.0),
    },
    kind="call",
    fn="first_negative_prefix",
    raw=("raw_body",),
)
PALIN = (
    "def is_mirror(s: str) -> bool:\n    return s == s[::-1]\n\n\n"
    "def shortest_mirror(s: str) -> str:\n"
    '    """ The shortest palindrome that begins with s (append characters at the end).\n'
    "    >>> shortest_mirror('cat')\n    'catac'\n    \"\"\"\n"
)
PALIN_BODY = "    for i in range(len(s) + 1):\n        if is_mirror(s[i:]):\n            return s + s[:i][::-1]\n"
add(
    "humaneval",
    "test",
    humaneval(
        "1",
        PALIN,
        "shortest_mirror",
        "    assert candidate('') == ''\n    assert candidate('cat') == 'catac'\n    assert candidate('abba') == 'abba'\n"
        "    assert candidate('ab') == 'aba'\n",
    ),
    {
        "body_uses_helper": (PALIN_BODY, 1.0),
        "with_helpers": (PALIN + PALIN_BODY, 1.0),
        "partly": ("    return s if is_mirror(s) else s + s[::-1]\n", 0.5),
        "wrong": ("    return s + 'x'\n", 0.0),
    },
    kind="call",
    fn="shortest_mirror",
)
HYPOT = (
    "import math\n\n\ndef hypot3(a: float, b: float, c: float) -> float:\n"
    '    """ Length of the vector (a, b, c).\n    >>> hypot3(1, 2, 2)\n    3.0\n    """\n'
)
add(
    "humaneval",
    "test",
    humaneval(
        "2",
        HYPOT,
        "hypot3",
        "    assert abs(candidate(1, 2, 2) - 3.0) < 1e-6\n    assert abs(candidate(0, 0, 0)) < 1e-6\n"
        "    assert abs(candidate(1, 1, 1) - 1.7320508) < 1e-6\n",
    ),
    {
        "body_math": ("    return math.sqrt(a * a + b * b + c * c)\n", 1.0),
        "chat_full": (HYPOT + "    return (a ** 2 + b ** 2 + c ** 2) ** 0.5\n", 1.0),
        "partly": ("    return math.sqrt(a * a + b * b + c * c) if a != b else a + b + c", 2 / 3),
        "wrong": ("    return a + b + c\n", 1 / 3),
    },
    kind="call",
    fn="hypot3",
)
add(
    "humaneval",
    "test",
    humaneval(
        "3",
        'def count_upper(words):\n    """ Count the words that are all upper case.\n    """\n',
        "count_upper",
        "    assert candidate(['A', 'b', 'CD']) == 2\n    assert candidate([]) == 0\n    assert True, 'never fails'\n"
        "    assert candidate(['x1', 'Y2']) == 1\n",
    ),
    {
        "with_main": (
            "def count_upper(words):\n    return sum(w.isupper() for w in words)\n\n\nif __name__ == '__main__':\n"
            "    print(count_upper(['A', 'b']))",
            1.0,
        ),
        "partly": ("def count_upper(words):\n    return sum(w.isupper() for w in words[:2])", 2 / 3),
        "wrong": ("def count_upper(words):\n    return len(words)", 1 / 3),
    },
    kind="call",
    fn="count_upper",
)
SPLIT = (
    "from typing import List, Tuple\n\n\ndef split_evens(nums: List[int]) -> Tuple[List[int], List[int]]:\n"
    '    """ Split nums into (evens, odds), each keeping the order of nums.\n    """\n'
)
add(
    "humaneval",
    "test",
    humaneval(
        "4",
        SPLIT,
        "split_evens",
        "    assert candidate([1, 2, 3, 4]) == ([2, 4], [1, 3])\n    assert candidate([]) == ([], [])\n"
        "    assert candidate([7]) == ([], [7])\n",
    ),
    {
        "own_helper": (
            "from typing import List, Tuple\n\n\ndef _keep(nums, parity):\n    return [n for n in nums if n % 2 == parity]"
            "\n\n\ndef split_evens(nums: List[int]) -> Tuple[List[int], List[int]]:\n"
            "    return _keep(nums, 0), _keep(nums, 1)\n",
            1.0,
        ),
        "body_nested_helper": (
            "    def keep(parity):\n        return [n for n in nums if n % 2 == parity]\n    return (keep(0), keep(1))\n",
            1.0,
        ),
        "lists_not_tuple": ("    return [[n for n in nums if n % 2 == 0], [n for n in nums if n % 2]]\n", 0.0),
        "partly": ("    return ([n for n in nums if n % 2 == 0], [])\n", 1 / 3),
    },
    kind="call",
    fn="split_evens",
)
add(
    "humaneval",
    "test",
    humaneval(
        "5",
        'def digit_product(n: int) -> int:\n    """ Product of the odd digits of n, 0 when there is none.\n'
        '    >>> digit_product(235)\n    15\n    """\n',
        "digit_product",
        "    # Check some simple cases\n    assert candidate(1) == 1\n    assert candidate(4) == 0\n"
        "    assert candidate(235) == 15, 'odd digits only'\n    assert candidate(2468) == 0\n"
        "    for x in [13, 31]:\n        assert candidate(x) == 3\n",
    ),
    {
        "explained": (
            "def digit_product(n: int) -> int:\n    product, seen = 1, False\n    for d in map(int, str(n)):\n"
            "        if d % 2:\n            product *= d\n            seen = True\n    return product if seen else 0\n",
            1.0,
        ),
        "partly": (
            "    p = 1\n    for d in str(n):\n        if int(d) % 2:\n            p *= int(d)\n    return p\n",
            0.6,
        ),
        "wrong": ("    return n % 10\n", 0.2),
    },
    kind="call",
    fn="digit_product",
)
