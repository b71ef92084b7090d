"""The base verifier's batch paths: a thread pool for slow verifiers, inline for microsecond ones."""

from __future__ import annotations

import threading

import pytest

import rewardkit as rk
from rewardkit.verifiers.base import Verifier
from rewardkit.verifiers.multiple_choice.verifier import MCQVerifier
from rewardkit.verifiers.verdict import Verdict


class ThreadRecorder(Verifier):
    name = "thread_recorder"

    def __init__(self, threads: int) -> None:
        self.batch_threads = threads
        self.seen: list[int] = []

    def _verify(self, completion, reference, **context):
        self.seen.append(threading.get_ident())
        if completion == "boom":
            raise ValueError("verifier bug")
        return Verdict(float(completion == reference), completion == reference, "ok", completion)


def test_inline_batch_runs_in_the_callers_thread_and_keeps_order():
    verifier = ThreadRecorder(threads=1)
    verdicts = verifier.verify_batch(["a", "b", "boom", "d"], ["a", "x", "c", "d"])
    assert [v.correct for v in verdicts] == [True, False, False, True]
    assert verdicts[2].status == "error" and "verifier bug" in verdicts[2].details["error"]
    assert set(verifier.seen) == {threading.get_ident()}


def test_threaded_batch_keeps_order():
    verifier = ThreadRecorder(threads=4)
    completions = [str(i % 3) for i in range(40)]
    verdicts = verifier.verify_batch(completions, ["1"] * 40)
    assert [v.correct for v in verdicts] == [c == "1" for c in completions]
    assert threading.get_ident() not in verifier.seen


def test_mcq_batch_is_inline():
    assert MCQVerifier.batch_threads == 1
    with rk.get_verifier("mcq") as verifier:
        assert verifier.verify_batch(["Answer: B", "A or B"], ["B", "B"], [None, {"options": ["x", "y"]}]) == [
            verifier.verify("Answer: B", "B"),
            verifier.verify("A or B", "B", options=["x", "y"]),
        ]


def test_batch_length_mismatch_is_a_usage_error():
    with pytest.raises(rk.VerifierError, match="one reference per completion"):
        ThreadRecorder(threads=1).verify_batch(["a", "b"], ["a"])
