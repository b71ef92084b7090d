"""rewardkit.profiling: stage timers that cost nothing when off, probes that leave no trace after a profile."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import rewardkit as rk
from rewardkit import profiling
from rewardkit.cli import main
from rewardkit.verifiers.code_tests import verifier as code_verifier
from rewardkit.verifiers.math_answer import verifier as math_verifier
from rewardkit.verifiers.multiple_choice.verifier import MCQVerifier

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_stage_is_a_shared_no_op_when_off():
    assert profiling.stage("a") is profiling.stage("b")
    with profiling.stage("a"):
        pass


def test_collect_times_mcq_and_math_stages_and_removes_its_probes():
    originals = (math_verifier.extract_answer, code_verifier.prepare_job)
    with profiling.collect() as profile:
        assert math_verifier.extract_answer is not originals[0]  # probe installed while collecting
        MCQVerifier().verify_batch(["Answer: B", "nothing"], ["B", "B"])
        with rk.get_verifier("math") as verifier:
            verifier.verify(r"\boxed{2}", "2")  # settled in-process: extract only
    assert (math_verifier.extract_answer, code_verifier.prepare_job) == originals
    stages = {name: calls for name, calls, _, _ in profile.rows()}
    assert stages["mcq: extract"] == 2 and stages["mcq: compare"] == 1  # "nothing" has no answer to compare
    assert stages["math: extract"] == 1
    assert profile.seconds > 0 and profile.not_instrumented == []
    assert "mcq: extract" in profile.render()
    assert profiling.stage("x") is profiling.stage("y")  # off again


def test_one_profile_at_a_time_and_missing_probes_are_listed(monkeypatch):
    monkeypatch.setattr(
        profiling, "PROBES", (("gone", "rewardkit.verifiers.math_answer.verifier", "no_such_function"),)
    )
    with profiling.collect() as profile, pytest.raises(RuntimeError, match="already being collected"):
        profiling.start()
    assert profile.not_instrumented == ["rewardkit.verifiers.math_answer.verifier:no_such_function"]
    assert "not instrumented" in profile.render()


def test_score_profile_prints_the_stages(tmp_path):
    from rewardkit.rewards.verifier_rewards import clear_verdict_memo

    clear_verdict_memo()  # verdicts remembered from an earlier test would not be extracted again
    result = CliRunner().invoke(
        main,
        ["score", "--reward", "mcq_accuracy", "--input", str(EXAMPLES / "mcq.jsonl"), "--no-progress", "--profile"],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    assert "profile:" in result.stderr and "mcq: extract" in result.stderr
    assert (
        "profile:"
        not in CliRunner()
        .invoke(main, ["score", "--reward", "mcq_accuracy", "--input", str(EXAMPLES / "mcq.jsonl"), "--no-progress"])
        .stderr
    )
