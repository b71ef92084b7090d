# ruff: noqa: E501  (rows of program text: a program line is clearer unbroken)
"""Held-out APPS and TACO rows (``input_output`` JSON text), our own problems in those datasets' layouts.

APPS/TACO grade call-based rows (``fn_name``) by calling the function, a tuple counting as a list and a
one-element expected list standing for its element; stdin rows by their output, line by line and token by
token, with numbers close enough (numpy's ``allclose``) where the expected value is a decimal.
"""

from __future__ import annotations

import json

from code_heldout_model import add


def apps(question: str, io: dict, fn: str | None = None, starter: str = "", problem_id: int = 0) -> dict:
    return {
        "problem_id": problem_id,
        "question": question,
        "solutions": json.dumps([]),
        "input_output": json.dumps(io),
        "difficulty": "interview",
        "url": f"https://example.invalid/problems/{problem_id}",
        "starter_code": starter,
    }


def taco(question: str, io: dict, starter: str = "", name: str = "") -> dict:
    return {
        "question": question,
        "solutions": json.dumps([]),
        "starter_code": starter,
        "input_output": json.dumps(io),
        "difficulty": "EASY",
        "raw_tags": "['Math']",
        "name": name or None,
        "source": "codewars" if io.get("fn_name") else "codechef",
        "tags": "['Mathematics']",
        "skill_types": "[]",
        "url": "https://example.invalid/taco",
        "Expected Auxiliary Space": None,
        "time_limit": None,
        "date": None,
        "picture_num": "0",
        "memory_limit": None,
        "Expected Time Complexity": None,
    }


# -- APPS stdin ------------------------------------------------------------------------------------------------

add(
    "apps",
    "input_output",
    apps("Read n, then n integers; print their sum.", {"inputs": ["3\n1 2 3", "1\n10"], "outputs": ["6\n", "10\n"]}),
    {
        "correct": ("n = int(input())\nprint(sum(map(int, input().split())))", 1.0),
        "partly": ("n = int(input())\nprint(sum(list(map(int, input().split()))[:2]))", 0.5),
        "wrong": ("n = int(input())\nprint(n)", 0.0),
    },
)
add(
    "apps",
    "input_output",
    apps("Print the numbers 1..n, one per line.", {"inputs": ["3\n", "1\n"], "outputs": [["1", "2", "3"], ["1"]]}),
    {
        "loop": ("for i in range(1, int(input()) + 1):\n    print(i)", 1.0),
        "sep_newline": ("n = int(input())\nprint(*range(1, n + 1), sep='\\n')", 1.0),
        "partly": ("n = int(input())\nprint(*range(1, max(2, n)), sep='\\n')", 0.5),
        "wrong": ("n = int(input())\nprint(*range(n), sep='\\n')", 0.0),
    },
)
add(
    "apps",
    "input_output",
    apps(
        "Sort the n numbers ascending.",
        {"inputs": ["3\n3 1 2\n", "1\n5\n"], "outputs": ["1 2 3 \n\n", "5 \n"]},
    ),
    {
        "correct": ("input()\nprint(*sorted(map(int, input().split())))", 1.0),
        "join_end": ("input()\nprint(' '.join(sorted(input().split(), key=int)), end='')", 1.0),
        "partly": ("input()\nprint(*input().split())", 0.5),
        "wrong": ("input()\nprint(len(input().split()))", 0.0),
    },
)
add(
    "apps",
    "input_output",
    apps(
        "Print the mean of the n numbers.",
        {"inputs": ["3\n1 2 4\n", "2\n4 6\n"], "outputs": ["2.3333333333\n", "5.0000000000\n"]},
    ),
    {
        "repr": ("n = int(input())\na = list(map(int, input().split()))\nprint(sum(a) / n)", 1.0),
        "format9": ("n = int(input())\na = list(map(int, input().split()))\nprint('%.9f' % (sum(a) / n))", 1.0),
        "partly": ("n = int(input())\na = list(map(int, input().split()))\nprint(sum(a) // n)", 0.5),
        "wrong": ("n = int(input())\na = list(map(int, input().split()))\nprint(max(a))", 0.0),
    },
)
add(
    "apps",
    "input_output",
    apps(
        "T test cases, each two integers a b: print a*b for each.",
        {
            "inputs": ["2\n2 3\n4 5\n", "1\n0 7\n", "3\n1 1\n2 2\n3 3\n"],
            "outputs": ["6\n20\n", "0\n", "1\n4\n9\n"],
        },
    ),
    {
        "main_block": (
            "import sys\n\ndef main():\n    data = sys.stdin.read().split()\n    t = int(data[0])\n"
            "    out = []\n    for i in range(t):\n        a, b = int(data[1 + 2 * i]), int(data[2 + 2 * i])\n"
            "        out.append(a * b)\n    print('\\n'.join(map(str, out)))\n\n\nif __name__ == '__main__':\n    main()",
            1.0,
        ),
        "partly": ("input()\na, b = map(int, input().split())\nprint(a * b)", 1 / 3),
        "wrong": ("for _ in range(int(input())):\n    a, b = map(int, input().split())\n    print(a + b)", 0.0),
    },
)
add(
    "apps",
    "input_output",
    apps(
        "Print 1 + 2 + ... + n computed recursively.", {"inputs": ["3000\n", "10\n"], "outputs": ["4501500\n", "55\n"]}
    ),
    {
        "recursion_limit": (
            "import sys\nsys.setrecursionlimit(10000)\n\ndef f(n):\n    return 0 if n == 0 else n + f(n - 1)\n\n"
            "print(f(int(input())))",
            1.0,
        ),
        "default_limit": ("def f(n):\n    return 0 if n == 0 else n + f(n - 1)\n\nprint(f(int(input())))", 0.5, None),
        "wrong": ("n = int(input())\nprint(n * n)", 0.0),
    },
)
add(
    "apps",
    "input_output",
    apps(
        "Print the letters of the word joined by '-'.",
        {"inputs": ["abc\n", "hello\n"], "outputs": ["a-b-c\n", "h-e-l-l-o\n"]},
    ),
    {
        "sep": ("print(*input().strip(), sep='-')", 1.0),
        "end_empty": ("import sys\nsys.stdout.write('-'.join(input().strip()))", 1.0),
        "partly": ("print('-'.join(input().strip()[:3]))", 0.5),
        "wrong": ("print(input().strip())", 0.0),
    },
)
add(
    "apps",
    "input_output",
    apps(
        "Given a matrix (list of rows), return the sum of all its elements.",
        {"inputs": [[[[1, 2], [3]]], [[[]]]], "outputs": [[6], [0]], "fn_name": "grid_sum"},
        starter="def grid_sum(m):\n    ",
    ),
    {
        "correct": ("def grid_sum(m):\n    return sum(map(sum, m))", 1.0),
        "with_main": (
            "def grid_sum(m):\n    return sum(sum(r) for r in m)\n\nif __name__ == '__main__':\n"
            "    print(grid_sum(eval(input())))",
            1.0,
        ),
        "partly": ("def grid_sum(m):\n    return sum(m[0]) if m and m[0] else 0", 0.5),
        "wrong": ("def grid_sum(m):\n    return len(m)", 0.0),
    },
    kind="call",
    fn="grid_sum",
)
add(
    "apps",
    "input_output",
    apps(
        "Return whether the string reads the same both ways.",
        {"inputs": [["aba"], ["ab"], ["a"]], "outputs": [[True], [False], [True]], "fn_name": "is_pal"},
    ),
    {
        "correct": ("def is_pal(s):\n    return s == s[::-1]", 1.0),
        "partly": ("def is_pal(s):\n    return True", 2 / 3),
        "wrong": ("def is_pal(s):\n    return 'yes'", 0.0),
    },
    kind="call",
    fn="is_pal",
)
add(
    "apps",
    "input_output",
    apps(
        "Read n and n numbers (CRLF lines); print the largest.",
        {"inputs": ["2\r\n1 7\r\n", "3\r\n-1 -5 -2\r\n"], "outputs": ["7\r\n", "-1\r\n"]},
    ),
    {
        "correct": ("input()\nprint(max(map(int, input().split())))", 1.0),
        "stdin_lines": (
            "import sys\nlines = sys.stdin.read().splitlines()\nprint(max(int(x) for x in lines[1].split()))",
            1.0,
        ),
        "partly": ("input()\nprint(max(map(abs, map(int, input().split()))))", 0.5),
        "wrong": ("input()\nprint(min(map(int, input().split())))", 0.0),
    },
)

# -- TACO ------------------------------------------------------------------------------------------------------

add(
    "taco",
    "input_output",
    taco(
        "Rotate the square matrix 90 degrees clockwise.",
        {"fn_name": "rotate", "inputs": [[[[1, 2], [3, 4]]], [[[1]]]], "outputs": [[[[3, 1], [4, 2]]], [[[1]]]]},
    ),
    {
        "lists": ("def rotate(m):\n    return [list(r) for r in zip(*m[::-1])]", 1.0),
        "tuples": ("def rotate(m):\n    return list(zip(*m[::-1]))", 1.0),
        "partly": ("def rotate(m):\n    return m[::-1]", 0.5),
        "wrong": ("def rotate(m):\n    return []", 0.0),
    },
    kind="call",
    fn="rotate",
)
add(
    "taco",
    "input_output",
    taco(
        "Best profit from one buy and one later sell.",
        {"fn_name": "maxProfit", "inputs": [[[7, 1, 5, 3, 6, 4]], [[7, 6, 4, 3, 1]], [[1, 2]]], "outputs": [5, 0, 1]},
        starter="class Solution:\n    def maxProfit(self, prices: List[int]) -> int:\n        ",
    ),
    {
        "solution_class": (
            "class Solution:\n    def maxProfit(self, prices: List[int]) -> int:\n        best, low = 0, prices[0]\n"
            "        for p in prices:\n            low = min(low, p)\n            best = max(best, p - low)\n"
            "        return best",
            1.0,
        ),
        "partly": (
            "class Solution:\n    def maxProfit(self, prices):\n        return max(prices) - min(prices)",
            1 / 3,
        ),
        "wrong": ("class Solution:\n    def maxProfit(self, prices):\n        return -1", 0.0),
    },
    kind="method",
    fn="maxProfit",
)
add(
    "taco",
    "input_output",
    taco(
        "T cases: print YES when n is even, else NO.",
        {"inputs": ["3\n2\n3\n4\n", "1\n7\n", "2\n10\n6\n"], "outputs": ["YES\nNO\nYES\n", "NO\n", "YES\nYES\n"]},
    ),
    {
        "readline_loop": (
            "import sys\ninput = sys.stdin.readline\nfor _ in range(int(input())):\n"
            "    print('YES' if int(input()) % 2 == 0 else 'NO')",
            1.0,
        ),
        "partly": ("for _ in range(int(input())):\n    print('YES' if int(input()) in (2, 4) else 'NO')", 2 / 3),
        "lowercase": ("for _ in range(int(input())):\n    print('yes' if int(input()) % 2 == 0 else 'no')", 0.0),
    },
)
add(
    "taco",
    "input_output",
    taco(
        "Print the area of a circle of radius r.",
        {"inputs": ["1\n", "2\n"], "outputs": ["3.141592653589793\n", "12.566370614359172\n"]},
    ),
    {
        "exact": ("import math\nr = int(input())\nprint(math.pi * r * r)", 1.0),
        "format10": ("r = int(input())\nprint('%.10f' % (math.pi * r * r))", 1.0),
        "partly": ("import math\nr = int(input())\nprint(math.pi * r * r if r < 2 else 12.56)", 0.5),
        "wrong": ("r = int(input())\nprint(r * r)", 0.0),
    },
)
add(
    "taco",
    "input_output",
    taco(
        "Return the string s repeated n times.",
        {"fn_name": "repeat_str", "inputs": [[3, "ab"], [0, "x"]], "outputs": [["ababab"], [""]]},
        starter="def repeat_str(repeat, string):\n\t",
    ),
    {
        "correct": ("def repeat_str(repeat, string):\n    return string * repeat", 1.0),
        "partly": ("def repeat_str(repeat, string):\n    return string * max(repeat, 1)", 0.5),
        "wrong": ("def repeat_str(repeat, string):\n    return string", 0.0),
    },
    kind="call",
    fn="repeat_str",
)
add(
    "taco",
    "input_output",
    taco(
        "Return the decimal digits of n as a list.",
        {"fn_name": "digits", "inputs": [[123], [7]], "outputs": [[[1, 2, 3]], [[7]]]},
    ),
    {
        "list": ("def digits(n):\n    return [int(c) for c in str(n)]", 1.0),
        "tuple": ("def digits(n):\n    return tuple(int(c) for c in str(n))", 1.0),
        "partly": ("def digits(n):\n    return [int(c) for c in str(n)][:2]", 0.5),
        "wrong": ("def digits(n):\n    return n", 0.0),
    },
    kind="call",
    fn="digits",
)
add(
    "taco",
    "input_output",
    taco(
        "Print the prefix sums of the n numbers on one line.",
        {"inputs": ["3\n1 2 3\n", "1\n5\n", "4\n1 1 1 1\n"], "outputs": ["1 3 6\n", "5\n", "1 2 3 4\n"]},
    ),
    {
        "end_space": (
            "import sys\ndata = sys.stdin.buffer.read().split()\ns = 0\nfor x in data[1:]:\n    s += int(x)\n"
            "    print(s, end=' ')\nprint()",
            1.0,
        ),
        "accumulate": ("input()\nprint(*accumulate(map(int, input().split())))", 1.0),
        "partly": ("input()\na = list(map(int, input().split()))\nprint(*[a[0]] + [a[0] + x for x in a[1:]])", 1 / 3),
        "wrong": ("input()\nprint(*input().split()[::-1])", 1 / 3),
    },
)
add(
    "taco",
    "input_output",
    taco(
        "Return the number of vowels in the word.",
        {"fn_name": "count_vowels", "inputs": [["hello"], ["sky"], ["AEIOU"]], "outputs": [2, 0, 5]},
    ),
    {
        "with_demo": (
            "def count_vowels(s):\n    return sum(c in 'aeiouAEIOU' for c in s)\n\nprint(count_vowels('demo'))\n\n"
            "if __name__ == '__main__':\n    print(count_vowels(input()))",
            1.0,
        ),
        "partly": ("def count_vowels(s):\n    return sum(c in 'aeiou' for c in s)", 2 / 3),
        "wrong": ("def count_vowels(s):\n    return 1", 0.0),
    },
    kind="call",
    fn="count_vowels",
)
