"""Host side of the code harness: rewrite the reference tests before they travel to the sandbox.

Each non-constant ``assert`` becomes a ``try`` that records pass/fail through ``__rk_record__`` and
carries on (partial credit); ``assert <constant>`` (HumanEval's ``assert True, "..."``) is left alone
and is not a test. The result is plain source, one string per top-level statement, so the supervisor
inside the sandbox only compiles it (it never imports ``ast``, which costs more than the rest).
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


class AssertRewriter(ast.NodeTransformer):
    """Turns each non-constant ``assert`` into a recorded check that does not stop the tests."""

    def __init__(self, lines: list[str]) -> None:
        self.sites: list[dict] = []
        self.lines = lines

    def visit_Assert(self, node: ast.Assert) -> ast.AST:
        if isinstance(node.test, ast.Constant):
            return node
        index = len(self.sites)
        text = self.lines[node.lineno - 1].strip() if 0 < node.lineno <= len(self.lines) else ""
        self.sites.append({"line": node.lineno, "source": text[:200]})
        block = ast.parse(_ASSERT_TEMPLATE).body[0]
        assert isinstance(block, ast.Try)
        block.body[0].value = node.test  # type: ignore[attr-defined]
        for call in (block.handlers[1].body[0].value, block.orelse[0].value):  # type: ignore[attr-defined]
            call.args[0] = ast.Constant(index)
        return ast.copy_location(block, node)



def instrument(test_src: str) -> dict[str, Any]:
    """``statements`` (rewritten source per top-level statement), ``sites`` (one per test) and
    ``names`` (every name the tests mention, for binding the program's definitions)."""
    tree = ast.parse(test_src, "<tests>")
    names = sorted({n.id for n in ast.walk(tree) if isinstance(n, ast.Name)})
    rewriter = AssertRewriter(test_src.splitlines())
    tree = ast.fix_missing_locations(rewriter.visit(tree))
    return {"statements": [ast.unparse(stmt) for stmt in tree.body], "sites": rewriter.sites, "names": names}
