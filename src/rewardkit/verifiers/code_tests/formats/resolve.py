"""Which form a reference is in, decided by its shape and the name of the column it came from.

Every shape has one reading; a value that fits none is InvalidReference naming the shapes accepted, never a
guess at another form. The column name (``reference_column`` in the context, as the code rewards pass it)
decides only what the shape leaves open: a ``test`` string with ``def check`` and an ``entry_point`` is
HumanEval, one of ``def test_*`` functions is a pytest file; ``input_output`` gets the APPS prelude; a
LiveCodeBench or CodeContests public column brings the row's other test sets along.
"""

from __future__ import annotations

import ast
import functools
import json
from collections.abc import Mapping
from typing import Any

from rewardkit.verifiers.code_tests.ast_guard import AST_LOCK
from rewardkit.verifiers.code_tests.formats import datasets
from rewardkit.verifiers.code_tests.formats.errors import InvalidReference
from rewardkit.verifiers.code_tests.formats.model import Resolved
from rewardkit.verifiers.code_tests.formats.preludes import prompt_code, prompt_text
from rewardkit.verifiers.code_tests.formats.pytest_tests import is_pytest_file, plan
from rewardkit.verifiers.code_tests.formats.values import UnsafeData, decode_packed_tests, parse_column

ACCEPTED = (
    "accepted references: assert code (a string); HumanEval {'test': <defines check(candidate)>, "
    "'entry_point': name} (or a 'test' column and an 'entry_point' column); a pytest file of test_* functions "
    "(KodCode 'test'); stdin/stdout {'inputs': [...], 'outputs': [...]}; APPS/TACO 'input_output' (with "
    "'fn_name': call-based); an MBPP 'test_list' (a list of assert strings); LiveCodeBench "
    "'public_test_cases' (a list of {'input', 'output', 'testtype'}); CodeContests 'public_tests' "
    "({'input': [...], 'output': [...]}); open-r1/PrimeIntellect 'verification_info' "
    "({'language', 'test_cases': [...]})"
)
LCB_COLUMNS = ("public_test_cases", "private_test_cases")
# Columns that hold test data (JSON or literal text), never test code.
DATA_COLUMNS = frozenset(
    {"input_output", "public_test_cases", "public_tests", "private_tests", "generated_tests", "verification_info"}
)
CODECONTESTS_COLUMNS = ("public_tests", "private_tests", "generated_tests")


def resolve_reference(
    reference: Any,
    context: Mapping[str, Any] | None = None,
    *,
    program: str = "",
    tolerance: Any = "auto",
    public_only: bool = False,
) -> Resolved:
    """The form of ``reference`` (with the row's other columns in ``context``); raises InvalidReference."""
    context = dict(context or {})
    column = context.get("reference_column") if isinstance(context.get("reference_column"), str) else None
    if column == "private_test_cases" and isinstance(reference, str) and reference.strip():
        try:
            value: Any = decode_packed_tests(reference)
        except UnsafeData as exc:
            raise InvalidReference(f"private_test_cases cannot be read safely: {exc}") from None
    else:
        value = parse_column(reference)
    if isinstance(value, str) and column in DATA_COLUMNS:
        raise InvalidReference(f"column {column!r} holds test data, but its text is not JSON: {_json_error(value)}")
    if isinstance(value, str):
        return _code(value, context)
    if isinstance(value, Mapping):
        return _mapping(value, context, program, tolerance, public_only, column)
    if isinstance(value, (list, tuple)):
        return _sequence(list(value), context, program, tolerance, public_only, column)
    raise InvalidReference(f"a reference must be test code or test data, got {type(value).__name__}; {ACCEPTED}")


def _json_error(text: str) -> str:
    try:
        json.loads(text)
    except ValueError as exc:
        return f"{exc} (starts {text[:40]!r})"
    return f"starts {text[:40]!r}"


@functools.lru_cache(maxsize=512)  # a GRPO group judges many programs against the same tests
def _parsed(test: str) -> ast.Module:
    try:
        with AST_LOCK:
            return ast.parse(test, "<tests>")
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        raise InvalidReference(f"the test code does not compile: {exc}") from None


def _defines(tree: ast.Module, name: str) -> bool:
    return any(isinstance(n, ast.FunctionDef) and n.name == name for n in tree.body)


def _top_level_nodes(tree: ast.Module) -> list[ast.AST]:
    """The nodes that run when the test code runs: all but the bodies of functions and classes."""
    skip = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return [inner for node in tree.body if not isinstance(node, skip) for inner in ast.walk(node)]


def _runs_tests(tree: ast.Module) -> bool:
    return any(isinstance(n, (ast.Assert, ast.Call)) for n in _top_level_nodes(tree))


def _calls(tree: ast.Module, name: str) -> bool:
    nodes = _top_level_nodes(tree)
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name for n in nodes)


def _code(test: str, context: Mapping[str, Any], entry: Any = None, explicit: bool = False) -> Resolved:
    if not test.strip():
        raise InvalidReference("empty test code")
    tree = _parsed(test)
    entry = entry if entry is not None else context.get("entry_point")
    if entry is not None and (not isinstance(entry, str) or not entry.isidentifier()):
        raise InvalidReference(f"'entry_point' must be a function name, got {entry!r}")
    if entry and _defines(tree, "check"):
        prompt = prompt_text(context.get("prompt"))
        prefix = (prompt_code(prompt, entry) or "") if prompt else ""
        return Resolved({"mode": "function", "test": test, "entry_point": entry}, "humaneval", prefix=prefix)
    if entry and explicit:
        raise InvalidReference("a reference with 'entry_point' needs test code that defines check(candidate)")
    if not entry and _defines(tree, "check") and not _calls(tree, "check"):
        raise InvalidReference(
            "the test code defines check(candidate) but nothing calls it: give the function's name as "
            "'entry_point' (HumanEval's entry_point column)"
        )
    if is_pytest_file(tree):
        plan(tree)  # refuses a file none of whose tests can run
        return Resolved({"mode": "function", "test": test, "entry_point": None, "style": "pytest"}, "pytest")
    if not any(isinstance(n, ast.Assert) and not isinstance(n.test, ast.Constant) for n in ast.walk(tree)):
        raise InvalidReference(
            "the test code has no assert statement to count as a test (nor check(candidate) with an "
            f"entry_point, nor test_* functions); {ACCEPTED}"
        )
    if not _runs_tests(tree):
        raise InvalidReference("the test code only defines functions and classes: no assert in it would run")
    return Resolved({"mode": "function", "test": test, "entry_point": None}, "asserts")


def _mapping(
    value: Mapping[str, Any],
    context: dict[str, Any],
    program: str,
    tolerance: Any,
    public_only: bool,
    column: str | None,
) -> Resolved:
    if "test" in value:
        test = value["test"]
        if not isinstance(test, str) or not test.strip():
            raise InvalidReference("reference 'test' must be a non-empty string of Python code")
        if value.get("prompt") is not None:
            context = {**context, "prompt": value["prompt"]}
        return _code(test, context, value.get("entry_point"), explicit="entry_point" in value)
    if "inputs" in value and "outputs" in value:
        return datasets.apps(value, context, program, tolerance, column)
    if "test_cases" in value:
        return datasets.verification_info(value, program)
    if "input" in value and "output" in value:
        return datasets.codecontests(value, context, public_only, column)
    keys = sorted(map(str, value))[:12]
    raise InvalidReference(f"a reference object with keys {keys} is in no known form; {ACCEPTED}")


def _sequence(
    items: list[Any],
    context: dict[str, Any],
    program: str,
    tolerance: Any,
    public_only: bool,
    column: str | None,
) -> Resolved:
    if not items:
        raise InvalidReference(f"an empty list of tests; {ACCEPTED}")
    if all(isinstance(x, str) for x in items):
        return _checked_mbpp(items, context)
    if not all(isinstance(x, Mapping) and "input" in x and "output" in x for x in items):
        raise InvalidReference(f"a list reference must hold assert strings or {{'input', 'output'}} cases; {ACCEPTED}")
    if any("type" in x for x in items) and not any("testtype" in x for x in items):
        return datasets.verification_info({"test_cases": items}, program)
    if column in LCB_COLUMNS or any("testtype" in x for x in items):
        return datasets.livecodebench(items, context, program, public_only, column)
    spec_value = {"inputs": [x["input"] for x in items], "outputs": [x["output"] for x in items]}
    return datasets.apps(spec_value, context, program, tolerance, None)


def _checked_mbpp(tests: list[str], context: Mapping[str, Any]) -> Resolved:
    resolved = datasets.mbpp(tests, context)
    tree = _parsed(resolved.spec["test"])
    if not any(isinstance(n, ast.Assert) and not isinstance(n.test, ast.Constant) for n in ast.walk(tree)):
        raise InvalidReference(f"the test list has no assert statement to count as a test; {ACCEPTED}")
    return resolved
