"""Pytest-style test files (KodCode's ``test`` column) as harness tests: one test per test function.

A file of ``def test_*()`` functions (and ``class Test*`` methods) that imports the program as ``solution``
runs in the supervisor like any reference test code, with three changes made here, on the host:

* ``from solution import f`` / ``import solution`` are dropped and ``f`` / ``solution.f`` become names the
  program binds (``imports``: the program's even where a builtin shares the name); ``import pytest`` binds
  the stand-in of :mod:`pytest_shim`;
* the asserts inside the test functions stay plain (a failing one ends its test, as in pytest);
* one recorded ``assert __rk_pytest_run__(test_x)`` per test is appended, so each test function is one
  test of the score (partial credit per function; a parametrized function passes when all its sets do).

A test function that asks for a fixture neither the file defines nor the stand-in has (``capsys``,
``monkeypatch``, ...) is left out of the count and listed in the verdict's ``skipped``; so is one marked
``skip``. The output has the shape of :func:`rewardkit.verifiers.code_tests.instrument.instrument`.
"""

from __future__ import annotations

import ast
import functools
from typing import Any

from rewardkit.verifiers.code_tests.formats.errors import InvalidReference
from rewardkit.verifiers.code_tests.formats.pytest_shim import SHIM
from rewardkit.verifiers.code_tests.instrument import instrument

PROGRAM_MODULE = "solution"
SHIM_FIXTURES = frozenset({"tmp_path"})


def is_pytest_file(tree: ast.Module) -> bool:
    """Test functions to collect, and no top-level ``assert`` or call of them (that is an assert script)."""
    tests = {name for name, _node, _owner in _collected(tree)}
    if not tests:
        return False
    for node in tree.body:
        if isinstance(node, ast.Assert):
            return False
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for inner in ast.walk(node):
            if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id in tests:
                return False
    return True


def _collected(tree: ast.Module) -> list[tuple[str, ast.FunctionDef, ast.ClassDef | None]]:
    found: list[tuple[str, ast.FunctionDef, ast.ClassDef | None]] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
            found.append((node.name, node, None))
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            methods = [n for n in node.body if isinstance(n, ast.FunctionDef)]
            if any(m.name == "__init__" for m in methods):
                continue  # pytest does not collect a class with __init__
            found.extend((m.name, m, node) for m in methods if m.name.startswith("test"))
    return found


def _mark_name(decorator: ast.expr) -> str | None:
    node = decorator.func if isinstance(decorator, ast.Call) else decorator
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else None


def _parametrized_names(decorators: list[ast.expr]) -> set[str] | None:
    """The argument names the ``parametrize`` marks among ``decorators`` give, or None when one is not a literal."""
    names: set[str] = set()
    for decorator in decorators:
        if _mark_name(decorator) != "parametrize" or not isinstance(decorator, ast.Call) or not decorator.args:
            continue
        try:
            given = ast.literal_eval(decorator.args[0])
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
        if isinstance(given, str):
            names.update(n.strip() for n in given.split(","))
        elif isinstance(given, (list, tuple)) and all(isinstance(n, str) for n in given):
            names.update(given)
        else:
            return None
    return names


class _ProgramImports(ast.NodeTransformer):
    """Drops the imports of the program and of pytest, binding their names as described above."""

    def __init__(self) -> None:
        self.imports: set[str] = set()
        self.module_aliases: set[str] = set()

    def visit_ImportFrom(self, node: ast.ImportFrom) -> Any:
        if node.module == "pytest":
            return [_assign(a.asname or a.name, f"__rk_pytest__.{a.name}") for a in node.names if a.name != "*"] or [
                ast.Pass()
            ]
        if node.module != PROGRAM_MODULE or node.level:
            return node
        out = []
        for alias in node.names:
            if alias.name == "*":
                continue  # the names the tests use and the program defines are bound anyway
            self.imports.add(alias.name)
            if alias.asname and alias.asname != alias.name:
                out.append(_assign(alias.asname, alias.name))
        return out or ast.Pass()

    def visit_Import(self, node: ast.Import) -> Any:
        kept, out = [], []
        for alias in node.names:
            if alias.name == PROGRAM_MODULE:
                self.module_aliases.add(alias.asname or alias.name)
            elif alias.name == "pytest":
                out.append(_assign(alias.asname or "pytest", "__rk_pytest__"))
            else:
                kept.append(alias)
        if kept:
            out.insert(0, ast.Import(names=kept))
        return out or ast.Pass()

    def visit_Attribute(self, node: ast.Attribute) -> Any:
        if isinstance(node.value, ast.Name) and node.value.id in self.module_aliases:
            self.imports.add(node.attr)
            return ast.copy_location(ast.Name(id=node.attr, ctx=node.ctx), node)
        return self.generic_visit(node)


@functools.lru_cache(maxsize=1)
def _shim_statements() -> list[str]:
    return [ast.unparse(stmt) for stmt in ast.parse(SHIM).body]


def _assign(name: str, source: str) -> ast.stmt:
    return ast.parse(f"{name} = {source}").body[0]


Plan = tuple[list[tuple[str, ast.FunctionDef, "str | None"]], list[dict[str, str]]]


def plan(tree: ast.Module) -> Plan:
    """The tests to run (label, function, class name) and those left out (with why); InvalidReference when
    none can run."""
    fixtures = {
        n.name
        for n in tree.body
        if isinstance(n, ast.FunctionDef) and any(_mark_name(d) == "fixture" for d in n.decorator_list)
    }
    runnable: list[tuple[str, ast.FunctionDef, str | None]] = []
    skipped: list[dict[str, str]] = []
    for name, node, cls in _collected(tree):
        owner = cls.name if cls is not None else None
        label = f"{owner}::{name}" if owner else name
        arguments = [a.arg for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs]
        arguments = arguments[1:] if owner and arguments and arguments[0] == "self" else arguments
        decorators = node.decorator_list + (cls.decorator_list if cls is not None else [])
        given = _parametrized_names(decorators)
        missing = [a for a in arguments if given is not None and a not in given and a not in fixtures]
        missing = [a for a in missing if a not in SHIM_FIXTURES]
        if any(_mark_name(d) == "skip" for d in decorators):
            skipped.append({"test": label, "reason": "marked skip"})
        elif missing:
            skipped.append({"test": label, "reason": f"needs pytest fixture(s) {', '.join(missing)}"})
        else:
            runnable.append((label, node, owner))
    if not runnable:
        reasons = "; ".join(f"{s['test']}: {s['reason']}" for s in skipped) or "no test function"
        raise InvalidReference(f"the pytest file has no test the verifier can run ({reasons})")
    return runnable, skipped


def instrument_pytest(test_src: str) -> dict[str, Any]:
    """``statements``, ``sites`` (one per test function), ``names``, ``imports`` and ``skipped``."""
    try:
        tree = ast.parse(test_src, "<tests>")
    except (SyntaxError, ValueError) as exc:
        raise InvalidReference(f"the test file does not compile: {exc}") from None
    runnable, skipped = plan(tree)
    rewriter = _ProgramImports()
    tree = ast.fix_missing_locations(rewriter.visit(tree))
    calls = "".join(
        f"assert __rk_pytest_run__({owner}.{node.name}, {owner})\n" if owner else f"assert __rk_pytest_run__({label})\n"
        for label, node, owner in runnable
    )
    runner = instrument(calls)
    for site, (label, node, _owner) in zip(runner["sites"], runnable, strict=True):
        site.update(line=node.lineno, source=label)
    shim = _shim_statements()
    names = sorted({n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | set(runner["names"]))
    return {
        "statements": shim + [ast.unparse(stmt) for stmt in tree.body] + runner["statements"],
        "sites": runner["sites"],
        "names": names,
        "imports": sorted(rewriter.imports),
        "skipped": skipped,
    }
