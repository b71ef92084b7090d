"""A second, held-out set of code-dataset rows (code_heldout_*_rows.py), scored as TRL calls a reward.

Each row is in its dataset's exact column layout (APPS, TACO, MBPP full and sanitized, HumanEval,
LiveCodeBench functional and stdin, CodeContests, open-r1 and PrimeIntellect, KodCode), with correct, partly
correct, wrong, crashing and hanging programs, and the score that dataset's own grading rule gives each.
``python tests/verifiers/code_tests/test_code_heldout.py`` prints how many are judged right, per dataset, with the
verifier's default settings.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections import defaultdict
from typing import Any

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import code_heldout_apps_rows  # noqa: F401  (each module adds its rows to ROWS)
import code_heldout_contest_rows  # noqa: F401
import code_heldout_function_rows  # noqa: F401
import code_heldout_kodcode_rows  # noqa: F401
import code_heldout_open_r1_rows  # noqa: F401
from code_heldout_model import ROWS, Row

import rewardkit as rk

SETTINGS = {"wall_time": 8, "call_timeout": 1.0}

# Cases this set holds that are not judged right yet, with the reason: (row id, program name).
NOT_FIXED: dict[tuple[str, str], str] = {}


def judge(rows: list[Row], **params: Any) -> list[tuple[Row, Any, dict[str, Any]]]:
    """Each row's programs scored in one batch per (dataset, reference column), the way TRL passes a batch:
    the prompt column as ``prompts``, every other column as a keyword list."""
    groups: dict[tuple[str, str], list[tuple[Row, Any]]] = defaultdict(list)
    for row in rows:
        for program in row.programs:
            groups[(row.dataset, row.key)].append((row, program))
    found = []
    for (_dataset, key), cases in groups.items():
        reward = rk.get_reward("code_pass_rate", reference_key=key, **params)
        try:
            names = {k for row, _ in cases for k in row.row} - {"prompt"}
            columns = {k: [row.row.get(k) for row, _ in cases] for k in names}
            prompts = [row.row.get("prompt", row.row.get("question", "")) for row, _ in cases]
            results = reward.explain(prompts=prompts, completions=[p.completion for _, p in cases], **columns)
        finally:
            reward.close()
        found.extend((row, program, result) for (row, program), result in zip(cases, results, strict=True))
    return found


def is_right(program: Any, result: dict[str, Any]) -> bool:
    if result["reward"] is None or abs(result["reward"] - program.score) > 1e-9:
        return False
    return program.status is None or result["status"] == program.status


@pytest.fixture(scope="module", autouse=True)
def local_sandbox() -> None:
    from rk_testing import require

    require(shutil.which("bwrap") is not None or os.geteuid() == 0, "no isolation tool for the local sandbox")


def test_the_set_is_in_every_layout_with_every_kind_of_program() -> None:
    datasets = {row.dataset for row in ROWS}
    assert datasets >= {"apps", "taco", "mbpp", "humaneval", "livecodebench", "codecontests", "open_r1", "kodcode"}
    assert len(ROWS) >= 60
    assert all({"crash", "hang"} <= {p.name for p in row.programs} for row in ROWS)


@pytest.mark.parametrize("dataset", sorted({row.dataset for row in ROWS}))
def test_held_out_rows_score_by_their_datasets_rule(dataset: str) -> None:
    rows = [row for row in ROWS if row.dataset == dataset]
    wrong = [
        (row.id, program.name, result["reward"], result["status"], program.score, program.status)
        for row, program, result in judge(rows, **SETTINGS)
        if not is_right(program, result) and (row.id, program.name) not in NOT_FIXED
    ]
    assert wrong == [], "(row, program, got score, got status, expected score, expected status)"


def test_objects_of_classes_the_tests_define_reach_the_program_by_value_only() -> None:
    """MBPP's test_setup_code classes and a pytest file's helper classes: their instances cross to the program
    as the program's class of that name (or an empty one), attributes only; nothing crosses back by value."""
    from rewardkit.verifiers.code_tests.harness import code_wire as wire

    tests = (
        "class Node:\n    def __init__(self, left=None, right=None):\n        self.left, self.right = left, right\n\n"
        "def test_depth():\n    assert depth(Node(Node(), None)) == 2\n\n"
        "def test_none():\n    assert depth(None) == 0\n"
    )
    program = "def depth(t):\n    return 0 if t is None else 1 + max(depth(t.left), depth(t.right))"
    with rk.get_verifier("code", **SETTINGS) as verifier:
        verdict = verifier.verify(program, tests, reference_column="test")
        assert (verdict.score, verdict.status) == (1.0, "ok")
        forged = "def depth(t):\n    return 1 if t is None else 2"
        assert verifier.verify(forged, tests, reference_column="test").score == 0.5
    with pytest.raises(wire.WireError):
        wire.decode(["o", "Node", ["d", []]])  # the supervisor's side: no maker, no object


def main() -> None:
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])  # cases right, cases, rows right, rows
    by_row: dict[str, bool] = {}
    for row, program, result in judge(ROWS):
        right = is_right(program, result)
        tally[row.dataset][0] += right
        tally[row.dataset][1] += 1
        by_row[row.id] = by_row.get(row.id, True) and right
        if not right:
            print(f"MISS {row.id} {program.name}: got {result['reward']} {result['status']}, "
                  f"want {program.score} {program.status}  {str(result.get('error') or '')[:100]}")  # fmt: skip
    for row in ROWS:
        tally[row.dataset][2] += by_row[row.id]
        tally[row.dataset][3] += 1
    for dataset, (cr, c, rr, r) in sorted(tally.items()):
        print(f"{dataset:15s} cases {cr}/{c}  rows {rr}/{r}")
    totals = [sum(t[i] for t in tally.values()) for i in range(4)]
    print(f"{'all':15s} cases {totals[0]}/{totals[1]}  rows {totals[2]}/{totals[3]}")


if __name__ == "__main__":
    main()
