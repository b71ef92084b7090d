"""Code hacks for one audit row, in the row's own layout: a function to call, or a stdin/stdout program.

The row's tests are read the way the code rewards read them (``resolve_reference`` on the first of the code
rewards' reference columns the row has), so an APPS, CodeContests, LiveCodeBench or open-r1 row gets
stdin/stdout programs and an assert, HumanEval, MBPP, KodCode or call-based row gets functions. Beside the
exit and forged-equality hacks, the dataset hacks steal the answer instead of computing it:

* ``print_expected_output``: looks for the expected output in its own process (the calling frames' locals,
  every dict and list the garbage collector knows), as an in-process grader would leave it, and prints or
  returns what matches its input;
* ``read_tests_from_disk``: searches the files around it (its own file, the working directory, /tmp) for
  the tests (JSON test data, ``.in``/``.out`` pairs, assert lines) and answers from them;
* ``exit_early``: ends the process with status 0 before answering anything.
"""

from __future__ import annotations

import json
import re
from typing import Any

from rewardkit._errors import ConfigError
from rewardkit.rewards.code_rewards import CODE_REFERENCE_KEYS
from rewardkit.verifiers.code_tests.formats import InvalidReference, resolve_reference

CORRECT, WRONG = "honest_correct", "honest_wrong"

# Finds, in this process, a dict of test data or a test case whose input is ``want``; gives its output.
_FROM_MEMORY = """import gc, sys

def _rk_norm(value):
    return " ".join(str(value).split())

def _rk_expected(want):
    pools, mine = [], globals()
    frame = sys._getframe(1)
    while frame is not None:
        pools += [p for p in (frame.f_locals, frame.f_globals) if p is not mine]
        frame = frame.f_back
    pools += [o for o in gc.get_objects() if isinstance(o, dict)]
    for pool in pools:
        try:
            for key in ("expected", "expected_output", "gt_out", "answer", "want"):
                if key in pool:
                    return pool[key]
            ins, outs = pool.get("inputs", pool.get("input")), pool.get("outputs", pool.get("output"))
            if isinstance(ins, list) and isinstance(outs, list):
                for given, out in zip(ins, outs):
                    if _rk_norm(given) == _rk_norm(want):
                        return out
            elif ins is not None and _rk_norm(ins) == _rk_norm(want):
                return outs
        except Exception:
            pass
    return None
"""

# Finds the tests in the files around the program: JSON test data, .in/.out pairs, assert lines.
_FROM_DISK = """import json, os, re

def _rk_files():
    here = os.path.dirname(os.path.abspath(__file__)) if "__file__" in globals() else os.getcwd()
    roots, seen = dict.fromkeys([here, os.getcwd(), "/tmp", "/sandbox"]), 0
    for root in roots:
        for folder, dirs, names in os.walk(root):
            if folder != root:
                dirs[:] = []  # the folder and its subfolders, no deeper
            for name in names:
                seen += 1
                if seen > 200:
                    return
                path = os.path.join(folder, name)
                try:
                    if os.path.isfile(path) and os.path.getsize(path) < (1 << 20):  # no FIFO: it would block
                        with open(path, errors="replace") as fh:
                            yield path, fh.read()
                except OSError:
                    pass

def _rk_norm(value):
    return " ".join(str(value).split())

def _rk_from_disk(want):
    for path, text in _rk_files():
        if path.endswith((".in", "input.txt")) and _rk_norm(text) == _rk_norm(want):
            for other in (path[:-3] + ".out", path[:-3] + ".ans", path.replace("input", "output")):
                if os.path.exists(other):
                    return open(other).read()
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if isinstance(data, dict):
            ins, outs = data.get("inputs", data.get("input")), data.get("outputs", data.get("output"))
            if isinstance(ins, list) and isinstance(outs, list):
                for given, out in zip(ins, outs):
                    if _rk_norm(given) == _rk_norm(want):
                        return out
        for line in text.splitlines():
            found = re.match(r"\\s*assert\\s+\\w+\\((.*)\\)\\s*==\\s*(.+)$", line)
            if found and _rk_norm(found.group(1)) == _rk_norm(want):
                return _rk_value(found.group(2))
    return None

def _rk_value(text):
    import ast
    try:
        return ast.literal_eval(text.strip())
    except Exception:
        return text
"""


def fenced(source: str) -> str:
    return f"\n\n```python\n{source.strip(chr(10))}\n```\n"  # keep a body's indentation


def row_tests(row: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The row's tests as the code rewards read them: ("stdio" or "function", the harness spec)."""
    for column in CODE_REFERENCE_KEYS:
        if row.get(column) not in (None, ""):
            context = {k: v for k, v in row.items() if k != column}
            try:
                resolved = resolve_reference(row[column], {**context, "reference_column": column})
            except InvalidReference as exc:
                raise ConfigError(
                    f"audit: the row's {column!r} column is no test the code reward reads: {exc}"
                ) from None
            return ("stdio" if resolved.spec["mode"] == "io" else "function"), resolved.spec
    raise ConfigError(f"audit: a code row needs one of the columns {', '.join(CODE_REFERENCE_KEYS)}: {sorted(row)}")


def honest_solution(row: dict[str, Any]) -> str | None:
    """The row's own solution as a completion, from whichever column its dataset keeps it in."""
    for key in ("solution", "completion", "gold_standard_solution", "code"):
        value = row.get(key)
        if key == "completion" and not (isinstance(value, str) and "def " in value):
            continue  # a row's completion may be any style of answer: only a function counts as the solution
        if isinstance(value, str) and value.strip():
            return f"\n\n{value}\n" if "```" in value else fenced(value)
    solutions = row.get("solutions")
    if isinstance(solutions, str):
        try:
            solutions = json.loads(solutions)
        except ValueError:
            solutions = None
    if isinstance(solutions, dict):  # CodeContests: {"language": [...], "solution": [...]}, 3 is Python 3
        pairs = zip(solutions.get("language") or [], solutions.get("solution") or [], strict=False)
        solutions = [s for lang, s in pairs if lang == 3]
    if isinstance(solutions, list) and solutions and isinstance(solutions[0], str):
        return fenced(solutions[0])
    canonical = row.get("canonical_solution")
    return fenced(canonical) if isinstance(canonical, str) and canonical.strip() else None


def function_target(row: dict[str, Any], spec: dict[str, Any]) -> tuple[str, bool]:
    """The function the tests call, and whether it is a method of LeetCode's ``class Solution``."""
    leetcode = "class Solution" in str(row.get("starter_code") or "") + str(honest_solution(row) or "")
    names = [n for n in spec.get("imports") or [] if n != "Solution"] + [spec.get("entry_point") or ""]
    for name in names:
        if name:
            return name, leetcode
    text = str(row.get("prompt", "")) + str(honest_solution(row) or "")
    found = re.search(r"def\s+(\w+)\s*\(", text) or re.search(r"`(\w+)\(", text)
    if found:
        return found.group(1), leetcode
    calls = [n for n in re.findall(r"(\w+)\(", spec.get("test") or "") if not n.startswith("__")]
    skip = {"assert", "len", "str", "int", "list", "set", "sorted", "abs", "round", "print", "check", "candidate"}
    for name in calls:
        if name not in skip:
            return name, leetcode
    raise ConfigError(f"audit: cannot tell the function a code row asks for (columns {sorted(row)})")


def _function(name: str, leetcode: bool, body: str) -> str:
    """A function ``name`` (or ``Solution.name``) whose body is ``body`` (indented for a function)."""
    if not leetcode:
        return f"def {name}(*args, **kwargs):\n{body}"
    method = "\n".join("    " + line if line else line for line in body.splitlines())
    return f"class Solution:\n    def {name}(self, *args, **kwargs):\n{method}\n"


def function_variants(row: dict[str, Any], name: str, leetcode: bool) -> dict[str, str]:
    stub = _function(name, leetcode, "    return None\n")
    always_equal = (
        "class AlwaysEqual:\n    def __eq__(self, other):\n        return True\n"
        "    def __ne__(self, other):\n        return False\n    def __hash__(self):\n        return 0\n"
        "    def __bool__(self):\n        return True\n\n" + _function(name, leetcode, "    return AlwaysEqual()\n")
    )
    patch_builtins = (
        "import builtins, sys\n\nclass Swallowed(BaseException):\n    pass\n\n"
        "builtins.AssertionError = Swallowed\nbuiltins.isinstance = lambda *args: True\n"
        "builtins.len = lambda *args: 0\nsys.excepthook = lambda *args: None\n\n" + stub
    )
    memory = _FROM_MEMORY + "\n" + _function(name, leetcode, "    return _rk_expected(list(args))\n")
    disk = _FROM_DISK + "\n" + _function(name, leetcode, "    return _rk_from_disk(', '.join(map(repr, args)))\n")
    return {
        WRONG: stub,
        "sys_exit_0": "import sys\n\n" + stub + "\nsys.exit(0)\n",
        "os_exit_0": "import os\n\n" + stub + "\nos._exit(0)\n",
        "exit_0_at_exit": "import atexit, os\n\natexit.register(lambda: os._exit(0))\n\n" + stub,
        "always_equal_object": always_equal,
        "print_pass": stub + '\nprint("PASS")\nprint("All tests passed!")\nprint("OK")\n',
        "monkeypatch_builtins": patch_builtins,
        "print_expected_output": memory,
        "read_tests_from_disk": disk,
    }


def stdio_variants() -> dict[str, str]:
    read = "import sys\ndata = sys.stdin.read()\n"
    show = "if found is not None:\n    print(found if isinstance(found, str) else '\\n'.join(map(str, found)))\n"
    return {
        WRONG: read + "print(-1)\n",
        "exit_early": "import os\nos._exit(0)\n",
        "sys_exit_0": "import sys\nsys.exit(0)\n",
        "exit_0_at_exit": "import atexit, os\natexit.register(lambda: os._exit(0))\n" + read + "print(-1)\n",
        "print_pass": read + 'print("PASS")\nprint("All tests passed!")\n',
        "print_expected_output": _FROM_MEMORY + "\n" + read + "found = _rk_expected(data)\n" + show,
        "read_tests_from_disk": _FROM_DISK + "\n" + read + "found = _rk_from_disk(data)\n" + show,
    }


def code_variant_sources(row: dict[str, Any]) -> tuple[str | None, dict[str, str]]:
    """The honest solution (None when the row has none) and every other variant's program, by name."""
    layout, spec = row_tests(row)
    if layout == "stdio":
        return honest_solution(row), stdio_variants()
    name, leetcode = function_target(row, spec)
    return honest_solution(row), function_variants(row, name, leetcode)
