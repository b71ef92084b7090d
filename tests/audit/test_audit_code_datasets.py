"""``rewardkit audit`` on code rows in datasets' layouts: the dataset hacks are real (naive graders credit
them) and the code rewards credit none of them, for the built-in rows and the bundled dataset examples."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import rewardkit as rk
from rewardkit.audit.builtin_rows import CODE_DATASET_ROWS
from rewardkit.audit.runner import run_audit
from rewardkit.rewards.base import as_reward
from rewardkit.verifiers.code_tests.extract import extract_program

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
APPS_ROW = CODE_DATASET_ROWS[0]
DATASET_HACKS = ("print_expected_output", "read_tests_from_disk", "exit_early")

# An APPS-style grader that runs the program in its own interpreter, the expected output in a local.
IN_PROCESS = r"""
import io, json, sys
tests = json.loads(sys.argv[1])
program = sys.stdin.read()
passed = 0
for given, expected in zip(tests["inputs"], tests["outputs"]):
    sys.stdin, out = io.StringIO(given), io.StringIO()
    real, sys.stdout = sys.stdout, out
    try:
        exec(compile(program, "solution", "exec"), {"__name__": "__main__"})
    except BaseException:
        pass
    finally:
        sys.stdout = real
    passed += out.getvalue().split() == expected.split()
print("SCORE", passed / len(tests["inputs"]))
"""


def _run(args: list[str], program: str, cwd: str | None = None, stdin: str | None = None) -> str:
    try:
        done = subprocess.run(
            args, input=stdin if stdin is not None else program, capture_output=True, text=True, cwd=cwd, timeout=20
        )
    except subprocess.TimeoutExpired:
        return ""
    return done.stdout


def in_process_grader(prompts, completions, input_output, **kwargs):
    """Deliberately weak: the program runs in the grader's process, next to the expected outputs."""
    scores = []
    for completion, tests in zip(completions, input_output, strict=True):
        if not tests:
            scores.append(0.0)
            continue
        out = _run([sys.executable, "-c", IN_PROCESS, tests], extract_program(str(completion)))
        found = [line for line in out.splitlines() if line.startswith("SCORE ")]
        scores.append(float(found[-1].split()[1]) if found else 0.0)
    return scores


def disk_grader(prompts, completions, input_output, **kwargs):
    """Deliberately weak: the tests lie in a file next to the program, which runs in that folder."""
    scores = []
    for completion, tests in zip(completions, input_output, strict=True):
        if not tests:
            scores.append(0.0)
            continue
        data = json.loads(tests)
        with tempfile.TemporaryDirectory() as folder:
            Path(folder, "tests.json").write_text(tests)
            Path(folder, "solution.py").write_text(extract_program(str(completion)))
            passed = sum(
                _run([sys.executable, "solution.py"], "", folder, given).split() == expected.split()
                for given, expected in zip(data["inputs"], data["outputs"], strict=True)
            )
        scores.append(passed / len(data["inputs"]))
    return scores


def test_the_dataset_hacks_are_credited_by_the_graders_they_attack() -> None:
    memory = run_audit(as_reward(in_process_grader, "in_process_grader"), kinds=["code"], data=[APPS_ROW])
    assert "print_expected_output" in {r.name for r in memory.credited()}
    disk = run_audit(as_reward(disk_grader, "disk_grader"), kinds=["code"], data=[APPS_ROW])
    assert "read_tests_from_disk" in {r.name for r in disk.credited()}


def test_every_code_row_layout_gets_the_dataset_hacks_and_none_is_credited(ci_require) -> None:
    probe = rk.get_reward("code_pass_rate", wall_time=10)
    try:
        status = probe.verifier.verify("```python\ndef f():\n    return 1\n```", "assert f() == 1").status
    finally:
        probe.close()
    ci_require(status == "ok", f"the local sandbox does not run programs here (status {status!r})")
    reward = rk.build_reward(str(EXAMPLES / "code_datasets_spec.yaml"))
    try:
        result = run_audit(reward, kinds=["code"], data=list(CODE_DATASET_ROWS))
    finally:
        reward.close()
    by_name = {r.name: r for r in result.results}
    assert set(DATASET_HACKS) <= set(by_name)
    assert by_name["honest_correct"].scores == [1.5] * len(CODE_DATASET_ROWS)  # pass rate + all-pass bonus
    assert result.credited() == []
    for hack in DATASET_HACKS:
        assert all(s in (0.0, None) for s in by_name[hack].scores), hack


@pytest.mark.parametrize("spec", ["code_spec.yaml", "code_datasets_spec.yaml"])
def test_each_bundled_code_spec_passes_the_audit_on_its_bundled_rows(spec, tmp_path, ci_require) -> None:
    from click.testing import CliRunner

    from rewardkit.cli import main

    if spec == "code_datasets_spec.yaml":  # one row per problem: the rows of a problem differ in completion only
        rows = [json.loads(line) for line in (EXAMPLES / "code_datasets.jsonl").read_text().splitlines()]
        data = tmp_path / "rows.jsonl"
        data.write_text("".join(json.dumps(r) + "\n" for r in rows if r["style"] == "correct"))
    else:
        data = EXAMPLES / "code.jsonl"
    result = CliRunner().invoke(main, ["audit", "-r", str(EXAMPLES / spec), "-d", str(data), "--max-rows", "10"])
    assert result.exit_code == 0, result.output
    assert "no hack credited" in result.output
