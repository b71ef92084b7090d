"""What a dataset's grader puts in front of the program, and where it goes.

Graders run a completion with some names already imported: APPS and TACO put a fixed import block before
every program, LiveCodeBench a larger one (every name of sixteen standard modules, ``typing`` included) and a
higher recursion limit, HumanEval the row's ``prompt`` (the signature and helpers the completion continues),
MBPP the row's ``test_imports``. A program that leans on those names is right by its dataset's rule, so it
gets them here too. The lines go after the program's docstring and ``from __future__`` imports.

Every program also gets ``exit`` and ``quit``: the harness starts Python with ``-S`` (no ``site``), which
would leave them undefined, and competitive programs call ``exit()`` to stop early.
"""

from __future__ import annotations

import ast
import builtins
import functools
import importlib
import symtable

from rewardkit.verifiers.code_tests.ast_guard import AST_LOCK
from rewardkit.verifiers.code_tests.extract import extract_program

EXIT_LINE = '__import__("builtins").exit = __import__("builtins").quit = __import__("sys").exit'

# APPS and TACO (and the PrimeIntellect rows graded with TACO's code): module imports, then names.
# Their block also imports numpy, which the sandbox's bare Python does not have: left out.
_APPS_MODULES = ("sys", "time", "itertools", "collections", "math", "fractions", "random", "heapq")
_APPS_NAMES = (
    ("itertools", "accumulate, product, permutations, combinations"),
    ("collections", "Counter, OrderedDict, deque, defaultdict, ChainMap"),
    ("functools", "lru_cache"),
    ("math", "sqrt, sin, cos, tan, ceil, fabs, floor, gcd, exp, log, log2"),
    ("typing", "List, Tuple"),
    ("heapq", "*"),
)
APPS_PRELUDE = "\n".join(
    [f"import {m}" for m in _APPS_MODULES] + [f"from {m} import {names}" for m, names in _APPS_NAMES]
)

# LiveCodeBench: every public name of these modules, builtins again (math's ``pow`` must not stay), then
# typing's, then the modules themselves under their own names, and a recursion limit of 50000.
_LCB_MODULES = (
    "string", "re", "datetime", "collections", "heapq", "bisect", "copy", "math", "random", "statistics",
    "itertools", "functools", "operator", "io", "sys", "json",
)  # fmt: skip
LCB_PRELUDE = "\n".join(
    [f"from {m} import *" for m in (*_LCB_MODULES, "builtins", "typing")]
    + [f"import {m}" for m in _LCB_MODULES]
    + ['__import__("sys").setrecursionlimit(50000)']
)


def needed_prelude(program: str, prelude: str) -> str:
    """The part of ``prelude`` the program can see: its imports only when the program reads a name that it
    never binds and that they bind (a stdin case pays for every import, fresh).

    Names are read from the program's symbol table (compiled, never run): a name some scope reads as a
    global, that no statement binds at module level, is free. A program with no free name the imports bind
    behaves the same without them; a self-contained line (a recursion limit) always stays, and a prelude
    with any other code is kept whole.
    """
    imports = [line for line in prelude.splitlines() if line.startswith(("import ", "from "))]
    rest = [line for line in prelude.splitlines() if line and not line.startswith(("import ", "from "))]
    if not imports or any(not line.startswith("__import__(") for line in rest):
        return prelude  # other code (MBPP's test_setup_code) may use the imports: all of it stays
    free = free_names(program)
    if free is None or free & _bound_by(tuple(imports)):
        return prelude
    return "\n".join(rest)


def free_names(program: str) -> set[str] | None:
    """Names the program reads as globals and never binds at module level (None: it does not compile)."""
    try:
        with AST_LOCK:
            top = symtable.symtable(program, "program.py", "exec")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    bound = {sym.get_name() for sym in top.get_symbols() if sym.is_local()}
    read: set[str] = set()
    tables = [top]
    while tables:
        table = tables.pop()
        tables.extend(table.get_children())
        for sym in table.get_symbols():
            if sym.is_declared_global() and sym.is_assigned():
                bound.add(sym.get_name())
            if sym.is_referenced() and (sym.is_global() if table is not top else not sym.is_local()):
                read.add(sym.get_name())
    return read - bound - set(dir(builtins))


@functools.lru_cache(maxsize=8)
def _bound_by(imports: tuple[str, ...]) -> frozenset[str]:
    """The names these (standard-library) import lines bind, read from the host's modules."""
    names: set[str] = set()
    for line in imports:
        words = line.replace(",", " ").split()
        if words[0] == "import":
            names.update(w for w in words[1:] if w != "as")
        elif words[3:] == ["*"]:
            module = importlib.import_module(words[1])
            public = getattr(module, "__all__", None)
            names.update(public if public is not None else (n for n in dir(module) if not n.startswith("_")))
        else:
            names.update(words[3:])
    return frozenset(names)


def with_prelude(program: str, prelude: str) -> str:
    """``program`` with ``prelude`` (and the ``exit`` line) after its docstring and ``__future__`` imports."""
    head = EXIT_LINE + ("\n" + prelude if prelude else "") + "\n"
    if "__future__" not in program:
        return head + program
    cut = _future_end(program)
    if cut is None:
        return head + program
    lines = program.splitlines(keepends=True)
    before = "".join(lines[:cut])
    return before + ("" if before.endswith("\n") else "\n") + head + "".join(lines[cut:])


def _future_end(program: str) -> int | None:
    """The line after the docstring and ``from __future__`` imports at the top, or None."""
    try:
        with AST_LOCK:
            body = ast.parse(program).body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None  # the sandbox reports the compile error
    end = None
    for index, node in enumerate(body):
        is_doc = index == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            end = node.end_lineno
        elif not is_doc:
            break
    return end


def prompt_text(prompt: object) -> str:
    """The text of a prompt: a string, or the last user turn of chat messages."""
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, (list, tuple)):
        for message in reversed(prompt):
            if isinstance(message, dict) and message.get("role", "user") == "user":
                content = message.get("content")
                return content if isinstance(content, str) else ""
    return ""


_CODE_STARTS = ("def ", "async def ", "from ", "import ", "class ", "@")


@functools.lru_cache(maxsize=256)
def prompt_code(prompt: str, entry_point: str) -> str | None:
    """HumanEval's prompt as code to put before the completion, when it defines ``entry_point``.

    The prompt itself, the last code block in it (a chat prompt that quotes the signature), or the prompt
    from its first line that starts code (an instruction, then the signature); None when none of these is
    Python that defines the function, so that a prose prompt is never run as code.
    """
    lines = prompt.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.startswith(_CODE_STARTS)][:8]
    for text in (prompt, extract_program(prompt), *("".join(lines[i:]) for i in starts if i)):
        try:
            with AST_LOCK:
                tree = ast.parse(text)
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            continue
        if any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == entry_point for n in tree.body):
            return text if text.endswith("\n") else text + "\n"
    return None
