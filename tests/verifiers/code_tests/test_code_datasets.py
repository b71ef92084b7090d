"""Code rewards on rows in public datasets' own column layouts, called the way TRL calls a reward.

Each dataset's rows (tests/verifiers/code_tests/code_dataset_rows.py) are scored with ``code_pass_rate`` naming the
dataset's own test column, every other column passed as TRL passes it; each program must get the score and
status its dataset's grading rule gives. Then the variations a held-out row may show: JSON strings instead
of nested columns, stringified lists, renamed columns, missing optional columns, public tests only.
"""

from __future__ import annotations

import json
import os
import shutil
from collections import defaultdict
from typing import Any

import pytest
from code_dataset_rows import CASES, CODECONTESTS, LCB_STDIN, MBPP_FULL, OPEN_R1, Case

import rewardkit as rk
from rk_testing import require

SETTINGS = {"wall_time": 8, "call_timeout": 1.0}
GROUPS: dict[tuple[str, str], list[Case]] = defaultdict(list)
for _case in CASES:
    GROUPS[(_case.dataset, _case.reference_key)].append(_case)


@pytest.fixture(scope="module", autouse=True)
def local_sandbox() -> None:
    require(shutil.which("bwrap") is not None or os.geteuid() == 0, "no isolation tool for the local sandbox")


def score_rows(
    rows: list[dict[str, Any]], completions: list[str], reward_name: str = "code_pass_rate", **params: Any
) -> list[dict[str, Any]]:
    """Score as TRL does: the prompt column as ``prompts``, every other column as a keyword argument."""
    reward = rk.get_reward(reward_name, **{**SETTINGS, **params})
    try:
        columns = {k: [row.get(k) for row in rows] for k in {k for row in rows for k in row} - {"prompt"}}
        prompts = [row.get("prompt", row.get("question", "")) for row in rows]
        return reward.explain(prompts=prompts, completions=completions, **columns)
    finally:
        reward.close()


def fenced(code: str) -> str:
    return f"```python\n{code}\n```"


@pytest.mark.parametrize("group", sorted(GROUPS), ids=lambda g: g[0])
def test_each_dataset_layout_scores_by_its_own_rule(group: tuple[str, str]) -> None:
    cases = GROUPS[group]
    found = score_rows([c.row for c in cases], [c.completion for c in cases], reference_key=group[1])
    wrong = [
        (c.program, row["reward"], row["status"], c.score, c.status)
        for c, row in zip(cases, found, strict=True)
        if row["reward"] is None or abs(row["reward"] - c.score) > 1e-9 or row["status"] != c.status
    ]
    assert wrong == [], f"{group[0]}: (program, got score, got status, expected score, expected status)"


def test_public_tests_only_leaves_the_other_sets_out() -> None:
    hardcoded = [c for c in CASES if c.id == "livecodebench_stdin-public_only_hardcoded"][0]
    partly = [c for c in CASES if c.id == "codecontests-partly"][0]
    found = score_rows([hardcoded.row], [hardcoded.completion], reference_key="public_test_cases")
    assert found[0]["reward"] == 0.5
    found = score_rows(
        [hardcoded.row], [hardcoded.completion], reference_key="public_test_cases", public_tests_only=True
    )
    assert found[0]["reward"] == 1.0  # the public cases alone cannot tell a lookup table from a solution
    found = score_rows([partly.row], [partly.completion], reference_key="public_tests", public_tests_only=True)
    assert found[0]["reward"] == 1.0


def test_held_out_variations_of_the_layouts() -> None:
    correct_cc = [c for c in CASES if c.id == "codecontests-correct"][0].code
    correct_lcb = [c for c in CASES if c.id == "livecodebench_stdin-correct"][0].code
    rows, programs, expected = [], [], []

    def case(row: dict[str, Any], code: str, score: float) -> None:
        rows.append(row)
        programs.append(fenced(code))
        expected.append(score)

    # CodeContests sets as JSON strings, one set missing, the expected output with different spacing
    case(
        {
            **CODECONTESTS,
            "public_tests": json.dumps(CODECONTESTS["public_tests"]),
            "private_tests": json.dumps(CODECONTESTS["private_tests"]),
            "generated_tests": None,
        },
        correct_cc,
        1.0,
    )
    # LiveCodeBench without private tests, public tests as a list instead of JSON text
    case(
        {**LCB_STDIN, "private_test_cases": "", "public_test_cases": json.loads(LCB_STDIN["public_test_cases"])},
        correct_lcb,
        1.0,
    )
    # verification_info as a JSON string with numbers as expected outputs
    info = {"language": "Python", "test_cases": [{"input": "hi\n", "output": 1, "type": "stdin_stdout"}]}
    case({**OPEN_R1, "verification_info": json.dumps(info)}, "print(sum(c in 'aeiou' for c in input()))", 1.0)
    found = score_rows(rows, programs, reference_key=["public_tests", "public_test_cases", "verification_info"])
    assert [r["reward"] for r in found] == expected, [r["status"] for r in found]


def test_a_stringified_test_list_and_input_output_as_a_dict() -> None:
    rows = [
        {**MBPP_FULL, "test_list": str(MBPP_FULL["test_list"])},
        {"question": "add", "input_output": {"inputs": [[2, 3]], "outputs": [5], "fn_name": "add"}},
    ]
    completions = [
        fenced("def second_largest(nums):\n    return sorted(set(nums))[-2]"),
        fenced("def add(a, b):\n    return a + b"),
    ]
    found = score_rows(rows, completions, reference_key=["test_list", "input_output"])
    assert [r["reward"] for r in found] == [1.0, 1.0]


def test_renamed_columns_come_through_context_keys() -> None:
    row = {"question": "he", "tests": "def check(candidate):\n    assert candidate(2) == 4\n", "func": "double"}
    found = score_rows(
        [row], [fenced("def double(x):\n    return 2 * x")], reference_key="tests", context_keys={"entry_point": "func"}
    )
    assert (found[0]["reward"], found[0]["status"]) == (1.0, "ok")


def test_the_default_reference_keys_find_the_datasets_test_columns() -> None:
    picked = [c for c in CASES if c.program == "correct" and c.dataset in ("mbpp", "open_r1", "kodcode")]
    found = score_rows([c.row for c in picked], [c.completion for c in picked])
    assert [r["reward"] for r in found] == [1.0] * len(picked)


def test_code_all_pass_and_verifier_accuracy_read_the_same_columns() -> None:
    case = [c for c in CASES if c.id == "humaneval-body_only"][0]
    for name, params in (("code_all_pass", {}), ("verifier_accuracy", {"verifier": "code"})):
        found = score_rows([case.row], [case.completion], name, reference_key="test", **params)
        assert found[0]["reward"] == 1.0, name


def test_a_row_the_verifier_cannot_read_is_invalid_reference_not_a_zero() -> None:
    rows = [
        {"question": "q", "input_output": json.dumps({"inputs": [[1, 2]], "outputs": [[3]]})},  # call data, no fn_name
        {"question": "q", "test": "def check(candidate):\n    assert candidate(1) == 1\n"},  # no entry_point
        {"question": "q", "verification_info": {"language": "cobol", "test_cases": [{"input": "1", "output": "1"}]}},
    ]
    found = score_rows(
        rows, [fenced("def f(x):\n    return x")] * 3, reference_key=["input_output", "test", "verification_info"]
    )
    assert [r["status"] for r in found] == ["invalid_reference"] * 3


def test_a_python_answer_to_a_cpp_row_is_a_language_mismatch_not_a_zero_for_the_dataset() -> None:
    row = {"question": "q", "verification_info": {"language": "cpp", "test_cases": [{"input": "1", "output": "1"}]}}
    found = score_rows([row], [fenced("print(input())")], reference_key="verification_info")
    assert (found[0]["reward"], found[0]["status"]) == (0.0, "language_mismatch")


def test_a_chat_prompt_that_quotes_humaneval_code_still_prefixes_it() -> None:
    body = [c for c in CASES if c.id == "humaneval-body_only"][0]
    chat = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Complete it.\n\n" + body.row["prompt"]},
    ]
    found = score_rows([{**body.row, "prompt": chat}], [body.completion], reference_key="test")
    assert (found[0]["reward"], found[0]["status"]) == (1.0, "ok")
