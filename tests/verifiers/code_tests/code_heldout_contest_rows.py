# ruff: noqa: E501  (rows of program text: a program line is clearer unbroken)
"""Held-out LiveCodeBench, CodeContests, open-r1 and PrimeIntellect rows, our own problems in their layouts.

LiveCodeBench: stdin lines compared stripped, a line of numbers equal as exact decimals (no tolerance);
functional cases call ``Solution().<func_name>`` with the newline-separated JSON arguments, the result
(tuples as lists) equal to the JSON output. CodeContests: every test set, tokens compared regardless of
lines and ASCII case, numbers within 1e-5. open-r1/PrimeIntellect: stdin lines stripped and equal;
``function_call`` cases as APPS calls them.
"""

from __future__ import annotations

import json

from code_heldout_model import add, packed


def lcb(title: str, public: list, private: list, func_name: str | None = None, starter: str = "") -> dict:
    kind = "functional" if func_name else "stdin"
    cases = lambda tests: [{"input": i, "output": o, "testtype": kind} for i, o in tests]  # noqa: E731
    return {
        "question_title": title,
        "question_content": title,
        "platform": "leetcode" if func_name else "atcoder",
        "question_id": title.lower().replace(" ", "-"),
        "contest_id": "heldout",
        "contest_date": "2025-01-01T00:00:00",
        "starter_code": starter,
        "difficulty": "medium",
        "public_test_cases": json.dumps(cases(public)),
        "private_test_cases": packed(cases(private)),
        "metadata": json.dumps({"func_name": func_name} if func_name else {}),
    }


# -- LiveCodeBench functional ------------------------------------------------------------------------------------

add(
    "livecodebench",
    "public_test_cases",
    lcb(
        "Two Sum",
        [("[2,7,11,15]\n9", "[0, 1]")],
        [("[3,2,4]\n6", "[1, 2]"), ("[3,3]\n6", "[0, 1]")],
        "twoSum",
        "class Solution:\n    def twoSum(self, nums: List[int], target: int) -> List[int]:\n        ",
    ),
    {
        "dict": (
            "class Solution:\n    def twoSum(self, nums: List[int], target: int) -> List[int]:\n        seen = {}\n"
            "        for i, x in enumerate(nums):\n            if target - x in seen:\n"
            "                return [seen[target - x], i]\n            seen[x] = i\n        return []",
            1.0,
        ),
        "partly": ("class Solution:\n    def twoSum(self, nums, target):\n        return [0, 1]", 2 / 3),
        "wrong": ("class Solution:\n    def twoSum(self, nums, target):\n        return []", 0.0),
    },
    kind="method",
    fn="twoSum",
)
add(
    "livecodebench",
    "public_test_cases",
    lcb("Palindrome Number", [("121", "true"), ("-121", "false")], [("10", "false")], "isPalindrome"),
    {
        "correct": (
            "from typing import *\n\nclass Solution:\n    def isPalindrome(self, x: int) -> bool:\n"
            "        return str(x) == str(x)[::-1]",
            1.0,
        ),
        "partly": ("class Solution:\n    def isPalindrome(self, x: int) -> bool:\n        return x >= 0", 2 / 3),
        "wrong": ("class Solution:\n    def isPalindrome(self, x):\n        return None", 0.0),
    },
    kind="method",
    fn="isPalindrome",
)
add(
    "livecodebench",
    "public_test_cases",
    lcb(
        "Reverse Words",
        [('"the sky is blue"', '"blue is sky the"')],
        [('"  hello world  "', '"world hello"')],
        "reverseWords",
    ),
    {
        "correct": (
            "class Solution:\n    def reverseWords(self, s: str) -> str:\n        return ' '.join(s.split()[::-1])",
            1.0,
        ),
        "partly": (
            "class Solution:\n    def reverseWords(self, s: str) -> str:\n        return ' '.join(s.split(' ')[::-1])",
            0.5,
        ),
        "wrong": ("class Solution:\n    def reverseWords(self, s: str) -> str:\n        return s", 0.0),
    },
    kind="method",
    fn="reverseWords",
)
add(
    "livecodebench",
    "public_test_cases",
    lcb(
        "Max Window Sum",
        [("[1,4,2,10,2]\n2", "12"), ("[5]\n1", "5")],
        [("[-1,-2,-3]\n2", "-3"), ("[1,2,3,4]\n4", "10")],
        "maxWindow",
    ),
    {
        "sliding": (
            "class Solution:\n    def maxWindow(self, nums: List[int], k: int) -> int:\n        s = sum(nums[:k])\n"
            "        best = s\n        for i in range(k, len(nums)):\n            s += nums[i] - nums[i - k]\n"
            "            best = max(best, s)\n        return best",
            1.0,
        ),
        "partly": ("class Solution:\n    def maxWindow(self, nums, k):\n        return sum(nums[:k])", 0.75),
        "wrong": ("class Solution:\n    def maxWindow(self, nums, k):\n        return max(nums) * k + 1", 0.0),
    },
    kind="method",
    fn="maxWindow",
)
add(
    "livecodebench",
    "public_test_cases",
    lcb("Group Pairs", [("[1,2,3]", "[[1, 2], [3]]")], [("[]", "[]"), ("[4,5]", "[[4, 5]]")], "groupPairs"),
    {
        "lists": (
            "class Solution:\n    def groupPairs(self, a):\n        return [a[i:i + 2] for i in range(0, len(a), 2)]",
            1.0,
        ),
        "tuples": (
            "class Solution:\n    def groupPairs(self, a):\n        return [tuple(a[i:i + 2]) for i in range(0, len(a), 2)]",
            1.0,
        ),
        "partly": ("class Solution:\n    def groupPairs(self, a):\n        return [a] if a else []", 2 / 3),
        "wrong": ("class Solution:\n    def groupPairs(self, a):\n        return None", 0.0),
    },
    kind="method",
    fn="groupPairs",
)

# -- LiveCodeBench stdin -----------------------------------------------------------------------------------------

add(
    "livecodebench",
    "public_test_cases",
    lcb("Mean Of Two", [("2 4\n", "3\n")], [("2 3\n", "2.5\n"), ("-1 0\n", "-0.5\n")]),
    {
        "float_print": ("a, b = map(int, input().split())\nprint((a + b) / 2)", 1.0),
        "fixed_digits": ("a, b = map(int, input().split())\nprint(f'{(a + b) / 2:.1f}')", 1.0),
        "partly": ("a, b = map(int, input().split())\nprint((a + b) // 2)", 1 / 3),
        "off_by_tiny": ("a, b = map(int, input().split())\nprint((a + b) / 2 + 1e-9)", 0.0),
    },
)
add(
    "livecodebench",
    "public_test_cases",
    lcb(
        "Divisors",
        [("6\n", "1\n2\n3\n6\n")],
        [("1\n", "1\n"), ("7\n", "1\n7\n"), ("12\n", "1\n2\n3\n4\n6\n12\n")],
    ),
    {
        "main_block": (
            "import sys\n\ndef main():\n    n = int(sys.stdin.read().split()[0])\n"
            "    print(*[d for d in range(1, n + 1) if n % d == 0], sep='\\n')\n\nif __name__ == '__main__':\n    main()",
            1.0,
        ),
        "wrong": ("n = int(input())\nprint(*[d for d in range(1, n) if n % d == 0], sep='\\n')", 0.0),
        "one_line": ("n = int(input())\nprint(*[d for d in range(1, n + 1) if n % d == 0])", 0.25),
    },
)
add(
    "livecodebench",
    "public_test_cases",
    lcb("Yes If Sorted", [("3\n1 2 3", "Yes")], [("2\n2 1", "No"), ("1\n9", "Yes")]),
    {
        "readline": (
            "import sys\nsys.stdin.readline()\na = list(map(int, sys.stdin.readline().split()))\n"
            "print('Yes' if a == sorted(a) else 'No')",
            1.0,
        ),
        "partly": ("input()\ninput()\nprint('Yes')", 2 / 3),
        "lowercase": ("input()\na = list(map(int, input().split()))\nprint('yes' if a == sorted(a) else 'no')", 0.0),
    },
)
add(
    "livecodebench",
    "public_test_cases",
    lcb("Squares", [("3\n", "1 4 9 \n")], [("1\n", "1\n"), ("2\n", "1 4\n\n")]),
    {
        "end_space": ("n = int(input())\nfor i in range(1, n + 1):\n    print(i * i, end=' ')\nprint()", 1.0),
        "partly": ("n = int(input())\nprint(*[i * i for i in range(1, min(n, 2) + 1)])", 2 / 3),
        "wrong": ("n = int(input())\nprint(*[i * 2 for i in range(1, n + 1)])", 0.0),
    },
)
add(
    "livecodebench",
    "public_test_cases",
    lcb("Deep Chain", [("20000\n", "20000\n")], [("5\n", "5\n")]),
    {
        "recursive": ("def depth(n):\n    return 0 if n == 0 else 1 + depth(n - 1)\n\nprint(depth(int(input())))", 1.0),
        "partly": ("n = int(input())\nprint(n if n < 100 else n - 1)", 0.5),
        "wrong": ("print(0)", 0.0),
    },
)

# -- CodeContests ------------------------------------------------------------------------------------------------


def contest(name: str, public: tuple, private: tuple, generated: tuple = ((), ())) -> dict:
    sets = lambda p: {"input": list(p[0]), "output": list(p[1])}  # noqa: E731
    return {
        "name": name,
        "description": name,
        "public_tests": sets(public),
        "private_tests": sets(private),
        "generated_tests": sets(generated),
        "source": 2,
        "difficulty": 7,
        "solutions": {"language": [], "solution": []},
        "incorrect_solutions": {"language": [], "solution": []},
        "cf_contest_id": 0,
        "cf_index": "A",
        "cf_points": 0.0,
        "cf_rating": 800,
        "cf_tags": [],
        "is_description_translated": False,
        "untranslated_description": "",
        "time_limit": {"seconds": 2, "nanos": 0},
        "memory_limit_bytes": 256000000,
        "input_file": "",
        "output_file": "",
    }


add(
    "codecontests",
    "public_tests",
    contest(
        "A. Max of three", (["1 5 3\n"], ["5\n"]), (["-1 -2 -3\n", "7 7 7\n", "0 9 10\n"], ["-1\n", "7\n", "10\n"])
    ),
    {
        "correct": ("print(max(map(int, input().split())))", 1.0),
        "partly": ("a = list(map(int, input().split()))\nprint(max(a[:2]))", 0.75),
        "wrong": ("print(sum(map(int, input().split())))", 0.0),
    },
)
add(
    "codecontests",
    "public_tests",
    contest("B. Even sum", (["2\n1 3\n2 3\n"], ["YES\nNO\n"]), (["1\n4 4\n"], ["YES\n"]), (["1\n0 1\n"], ["NO\n"])),
    {
        "titlecase": (
            "for _ in range(int(input())):\n    a, b = map(int, input().split())\n"
            "    print('Yes' if (a + b) % 2 == 0 else 'No')",
            1.0,
        ),
        "partly": ("for _ in range(int(input())):\n    input()\n    print('YES')", 1 / 3),
        "wrong": ("for _ in range(int(input())):\n    a, b = map(int, input().split())\n    print(a + b)", 0.0),
    },
)
add(
    "codecontests",
    "public_tests",
    contest("C. Countdown", (["3\n"], ["3\n2\n1\n"]), (["1\n"], ["1\n"]), (["5\n", "2\n"], ["5 4 3 2 1\n", "2 1\n"])),
    {
        "one_line": ("n = int(input())\nprint(*range(n, 0, -1))", 1.0),
        "lines": ("n = int(input())\nfor i in range(n, 0, -1):\n    print(i)", 1.0),
        "partly": ("n = int(input())\nprint(*range(min(n, 3), 0, -1))", 0.75),
        "wrong": ("n = int(input())\nprint(*range(1, n + 1))", 0.25),
    },
)
add(
    "codecontests",
    "public_tests",
    contest("D. Ratio", (["1 3\n"], ["0.333333333\n"]), (["2 4\n", "5 2\n"], ["0.5\n", "2.5000000\n"])),
    {
        "six_digits": ("a, b = map(int, input().split())\nprint('%.6f' % (a / b))", 1.0),
        "repr": ("a, b = map(int, input().split())\nprint(a / b)", 1.0),
        "wrong": ("a, b = map(int, input().split())\nprint(a // b)", 0.0),
        "rounded": ("a, b = map(int, input().split())\nprint(round(a / b, 2))", 2 / 3),
    },
)
add(
    "codecontests",
    "public_tests",
    contest(
        "E. Pairs",
        (["4\n1 2 3 4\n"], ["2\n"]),
        (["2\n5 5\n"], ["1\n"]),
        (["6\n1 1 1 1 1 1\n", "1\n7\n", "3\n1 2 3\n"], ["3\n", "0\n", "1\n"]),
    ),
    {
        "fast_io": (
            "import sys\ninput = sys.stdin.readline\nn = int(input())\na = input().split()\nprint(n // 2)",
            1.0,
        ),
        "partly": ("n = int(input())\nprint((n + 1) // 2)", 0.6),
        "wrong": ("print(1)", 0.4),
    },
)
add(
    "codecontests",
    "public_tests",
    contest("F. Echo words", (["hello world\n"], ["HELLO WORLD\n"]), ([], [])),
    {
        "upper": ("print(input().upper())", 1.0),
        "as_is": ("print(input())", 1.0),
        "wrong": ("print(input()[::-1])", 0.0),
    },
)
