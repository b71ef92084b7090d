"""Simple mutants of HumanEval canonical solutions, and the plain-execution baseline they are judged by."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable


def _entry_function(tree: ast.Module, entry_point: str) -> ast.FunctionDef | None:
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == entry_point:
            return node
    return None


def _return_none(fn: ast.FunctionDef) -> bool:
    doc = fn.body[:1] if fn.body and isinstance(fn.body[0], ast.Expr) and isinstance(
        getattr(fn.body[0], "value", None), ast.Constant) else []
    fn.body = [*doc, ast.Return(ast.Constant(None))]
    return True


def _off_by_one(fn: ast.FunctionDef) -> bool:
    for node in ast.walk(fn):
        if isinstance(node, ast.Constant) and type(node.value) is int:
            node.value += 1
            return True
    return False


_SWAPS: dict[type, type] = {
    ast.Lt: ast.GtE, ast.LtE: ast.Gt, ast.Gt: ast.LtE, ast.GtE: ast.Lt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq,
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Add, ast.And: ast.Or, ast.Or: ast.And,
}


def _swap_operator(fn: ast.FunctionDef) -> bool:
    for node in ast.walk(fn):
        if isinstance(node, ast.Compare):
            swap = _SWAPS.get(type(node.ops[0]))
            if swap:
                node.ops[0] = swap()
                return True
        if isinstance(node, (ast.BinOp, ast.BoolOp)):
            swap = _SWAPS.get(type(node.op))
            if swap:
                node.op = swap()
                return True
    return False


MUTATIONS: dict[str, Callable[[ast.FunctionDef], bool]] = {
    "return_none": _return_none,
    "off_by_one": _off_by_one,
    "swap_operator": _swap_operator,
}


def mutate(program: str, entry_point: str, mutation: str) -> str | None:
    """``program`` with one mutation applied inside ``entry_point``, or None when it does not apply."""
    tree = ast.parse(program)
    fn = _entry_function(tree, entry_point)
    if fn is None or not MUTATIONS[mutation](fn):
        return None
    mutated = ast.unparse(ast.fix_missing_locations(tree))
    return mutated if mutated != ast.unparse(ast.parse(program)) else None


def plain_execution_passes(program: str, test: str, entry_point: str, timeout: float) -> bool:
    """What running the program and HumanEval's check in one bare interpreter says (the baseline)."""
    source = f"{program}\n\n{test}\n\ncheck({entry_point})\n"
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "baseline.py")
        with open(path, "w") as fh:
            fh.write(source)
        try:
            done = subprocess.run([sys.executable, "-I", path], cwd=tmp, capture_output=True, timeout=timeout,
                                  env={"PATH": "/usr/bin:/bin"}, check=False)
        except subprocess.TimeoutExpired:
            return False
    return done.returncode == 0
