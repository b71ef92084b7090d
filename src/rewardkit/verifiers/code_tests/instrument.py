"""Host side of the code harness: rewrite the reference tests before they travel to the sandbox.

Each non-constant ``assert`` becomes a ``try`` that records pass/fail through ``__rk_record__`` and
carries on (partial credit); ``assert <constant>`` (HumanEval's ``assert True, "..."``) is left alone
and is not a test. The result is plain source, one string per top-level statement, so the supervisor
inside the sandbox only compiles it (it never imports ``ast``, which costs more than the rest).

A test site that can run more than once (``repeat``) is credited only once the statement that repeats
it has finished: ``"loop"`` sites (in a loop) when their outermost loop in ``check`` (``__rk_commit__``
after it) or their top-level statement ends normally; ``"function"`` sites (in a helper function, or in
a ``check`` the tests also call themselves) when the statement that called them ends normally, and
never once any statement of the run was cut short (it may have been about to run them again). So a
program that answers the first case of a loop and then hangs or crashes gets no credit for the loop.
"""

from __future__ import annotations

import ast
from typing import Any

_ASSERT_TEMPLATE = """
try:
    __rk_value__ = __RK_TEST__
except __rk_Deadline__:
    raise
except BaseException as __rk_exc__:
    __rk_record__(0, False, __rk_exc__)
else:
    __rk_record__(0, __rk_value__, None)
"""
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


class AssertRewriter(ast.NodeTransformer):
    """Turns each non-constant ``assert`` into a recorded check that does not stop the tests."""

    def __init__(self, lines: list[str], single_check: bool) -> None:
        self.sites: list[dict[str, Any]] = []
        self.lines = lines
        self.single_check = single_check  # the top-level check() runs exactly once (the supervisor calls it)
        self.loops = 0
        self.functions = 0
        self.in_check = False

    def visit_Assert(self, node: ast.Assert) -> ast.AST:
        if isinstance(node.test, ast.Constant):
            return node
        index = len(self.sites)
        text = self.lines[node.lineno - 1].strip() if 0 < node.lineno <= len(self.lines) else ""
        repeat = "function" if self.functions else "loop" if self.loops else None
        self.sites.append({"line": node.lineno, "source": text[:200], "repeat": repeat})
        block = ast.parse(_ASSERT_TEMPLATE).body[0]
        assert isinstance(block, ast.Try)
        block.body[0].value = node.test  # type: ignore[attr-defined]
        for call in (block.handlers[1].body[0].value, block.orelse[0].value):  # type: ignore[attr-defined]
            call.args[0] = ast.Constant(index)
        return ast.copy_location(block, node)

    def _visit_function(self, node: ast.AST) -> ast.AST:
        top_check = (
            self.single_check
            and isinstance(node, ast.FunctionDef)
            and node.name == "check"
            and not (self.functions or self.loops or self.in_check)
        )
        if top_check:
            self.in_check = True
        else:
            self.functions += 1
        try:
            return self.generic_visit(node)
        finally:
            if top_check:
                self.in_check = False
            else:
                self.functions -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _visit_function

    def _visit_loop(self, node: ast.AST) -> ast.AST | list[ast.AST]:
        first = len(self.sites)
        self.loops += 1
        try:
            node = self.generic_visit(node)
        finally:
            self.loops -= 1
        inside = [i for i in range(first, len(self.sites)) if self.sites[i]["repeat"] == "loop"]
        if self.loops or self.functions or not self.in_check or not inside:
            return node
        commit = ast.parse(f"__rk_commit__({tuple(inside)!r})").body[0]
        return [node, ast.copy_location(commit, node)]

    visit_For = visit_AsyncFor = visit_While = _visit_loop


def instrument(test_src: str, entry_point: str | None = None) -> dict[str, Any]:
    """``statements`` (rewritten source per top-level statement), ``sites`` (one per test) and
    ``names`` (every name the tests mention, for binding the program's definitions)."""
    tree = ast.parse(test_src, "<tests>")
    names = sorted({n.id for n in ast.walk(tree) if isinstance(n, ast.Name)})
    check_called = any(isinstance(n, ast.Name) and n.id == "check" for n in ast.walk(tree))
    rewriter = AssertRewriter(test_src.splitlines(), single_check=entry_point is not None and not check_called)
    tree = ast.fix_missing_locations(rewriter.visit(tree))
    return {"statements": [ast.unparse(stmt) for stmt in tree.body], "sites": rewriter.sites, "names": names}
