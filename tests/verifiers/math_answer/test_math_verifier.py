"""The math verifier: extraction and equivalence rules, hedges, time limits, batch parity."""

from __future__ import annotations

import pickle
import threading
import time

import pytest

import rewardkit as rk
from rewardkit.verifiers.math_answer.compare import split_values
from rewardkit.verifiers.math_answer.extract import extract_answer
from rewardkit.verifiers.math_answer.verifier import MathVerifier


@pytest.fixture(scope="module")
def math_verifier():
    with rk.get_verifier("math", workers=2) as verifier:
        yield verifier


# (name, reference, completion, expected correct, expected status)
EQUIVALENCE = [
    ("fraction vs decimal", r"\frac{1}{2}", r"The answer is $\boxed{0.5}$.", True, "ok"),
    ("short frac", r"\frac12", r"so $\boxed{\frac{1}{2}}$", True, "ok"),
    ("dfrac", r"\frac{3}{4}", r"$\boxed{\dfrac{3}{4}}$", True, "ok"),
    ("reference in dollars", r"$\frac{1}{2}$", r"\boxed{1/2}", True, "ok"),
    ("integer reference from a dataset", 42, r"\boxed{42}", True, "ok"),
    ("wrong number", "42", r"\boxed{41}", False, "ok"),
    ("thousands braces", "1000", r"\boxed{1{,}000}", True, "ok"),
    ("thousands comma", "1000", r"\boxed{1,000}", True, "ok"),
    ("power of ten", "1000", r"\boxed{10^3}", True, "ok"),
    ("scientific", "1500", r"\boxed{1.5 \times 10^{3}}", True, "ok"),
    ("percentage", "0.5", r"\boxed{50\%}", True, "ok"),
    ("mixed number latex", r"2\frac{1}{2}", r"\boxed{2.5}", True, "ok"),
    ("mixed number plain", "5/2", r"\boxed{2 1/2}", True, "ok"),
    ("integers are exact: no tolerance", "1234567", r"\boxed{1234567.5}", False, "ok"),
    ("integers are exact: close is not equal", "1234567", r"\boxed{1234580}", False, "ok"),
    ("tiny numbers are not all zero", "1e-7", r"\boxed{2e-7}", False, "ok"),
    ("numbers beyond float range", "10^{400}", r"\boxed{1 \times 10^{400}}", True, "ok"),
    ("numbers beyond float range differ", "10^{400}", r"\boxed{2 \times 10^{400}}", False, "ok"),
    ("irrational vs decimal", r"\sqrt{2}", r"\boxed{1.41421356}", True, "ok"),
    ("rationalised surd", r"\sqrt{2}", r"\boxed{\frac{2}{\sqrt{2}}}", True, "ok"),
    ("pi expression", r"\frac{\pi}{2}", r"\boxed{\pi/2}", True, "ok"),
    ("symbolic expression", r"x^2+2x+1", r"\boxed{(x+1)^2}", True, "ok"),
    ("different expression", r"x^2+2x+1", r"\boxed{(x-1)^2}", False, "ok"),
    ("equation vs value", "x=3", r"\boxed{3}", True, "ok"),
    ("value vs equation", "3", r"\boxed{x = 3}", True, "ok"),
    ("half-open interval", "(1,2]", r"\boxed{(1, 2]}", True, "ok"),
    ("interval wrong bracket", "(1,2]", r"\boxed{[1,2]}", False, "ok"),
    ("union of intervals", r"(-\infty,1)\cup(2,\infty)", r"\boxed{(-\infty, 1) \cup (2, \infty)}", True, "ok"),
    ("ordered tuple", "(1,2)", r"\boxed{(1,2)}", True, "ok"),
    ("tuple order matters", "(1,2)", r"\boxed{(2,1)}", False, "ok"),
    ("matrix", r"\begin{pmatrix}1\\2\end{pmatrix}", r"\boxed{\begin{pmatrix} 1 \\ 2 \end{pmatrix}}", True, "ok"),
    (
        "matrix wrong entry",
        r"\begin{pmatrix}1\\2\end{pmatrix}",
        r"\boxed{\begin{pmatrix}1\\3\end{pmatrix}}",
        False,
        "ok",
    ),
    ("degree sign", "90", r"\boxed{90^\circ}", True, "ok"),
    ("unit dropped", "5", r"\boxed{5\text{ cm}}", True, "ok"),
    ("text answer", r"\text{Monday}", r"\boxed{\text{Monday}}", True, "ok"),
    ("text answer plain", r"\text{Monday}", r"The answer is Monday.", True, "ok"),
    ("text answer wrong", r"\text{Monday}", r"\boxed{\text{Tuesday}}", False, "ok"),
    ("set reference", r"\{1,-2\}", r"\boxed{1, -2}", True, "ok"),
    ("several values any order", "1, -2", r"\boxed{-2, 1}", True, "ok"),
    ("several values with or", r"x=1 \text{ or } x=-2", r"\boxed{x=-2 \text{ or } x=1}", True, "ok"),
    ("several values missing one", "1, -2", r"\boxed{1}", False, "ok"),
    ("several values as a set", "1, -2", r"\boxed{\{-2, 1\}}", True, "ok"),
]

# (name, reference, completion, expected correct, expected status)
EXTRACTION = [
    ("last box wins over a draft", "4", r"First try: \boxed{3}. Wait, that is wrong. \boxed{4}", True, "ok"),
    ("draft box is not the answer", "3", r"First try: \boxed{3}. Wait, that is wrong. \boxed{4}", False, "ok"),
    (
        "later statement overrides a box",
        "3",
        r"Draft \boxed{4}. Checking again... Final Answer: The final answer is $3$. I hope it is correct.",
        True,
        "ok",
    ),
    ("the answer is", "12", "Adding them up, the answer is 12.", True, "ok"),
    ("answer line", "12", "Work...\nAnswer: 12", True, "ok"),
    ("answer tag", "7", "<think>7 or 8?</think><answer>7</answer>", True, "ok"),
    ("box inside answer tag", "7", r"<answer>\boxed{7}</answer>", True, "ok"),
    ("fbox", "7", r"\fbox{7}", True, "ok"),
    ("nested braces in box", r"\frac{1}{2}", r"\boxed{\frac{1}{2}}", True, "ok"),
    ("closed think: only after it counts", "7", r"<think>It is \boxed{7}</think> The answer is 8", False, "ok"),
    ("closed think: answer after it", "8", r"<think>It is \boxed{7}</think> The answer is 8", True, "ok"),
    ("unclosed think: never answered", "7", r"<think>maybe \boxed{7} and then I ran out of tokens", False, "no_answer"),
    (
        "remark after the box is not an answer",
        "4",
        r"So \boxed{4}. To check whether the answer is correct, substitute back.",
        True,
        "ok",
    ),
    ("spread over boxes", "1, -2", r"The roots are \boxed{-2} and \boxed{1}.", True, "ok"),
    ("spread over boxes with dollars", r"x=1 \text{ or } x=-2", r"$x = \boxed{-2}$ or $x = \boxed{1}$", True, "ok"),
    ("no answer", "3", "I am not sure how to solve this problem.", False, "no_answer"),
    ("empty box", "3", r"\boxed{}", False, "no_answer"),
    ("unclosed box", "3", r"\boxed{3", False, "no_answer"),
    ("chat messages", "5", [{"role": "assistant", "content": r"\boxed{5}"}], True, "ok"),
    (
        "chat with reasoning_content",
        "5",
        [{"role": "assistant", "reasoning_content": r"maybe \boxed{6}", "content": r"\boxed{5}"}],
        True,
        "ok",
    ),
]

# (name, reference, completion) — each hedges and must earn nothing
HEDGES = [
    ("or inside a box", "3", r"\boxed{2 \text{ or } 3}"),
    ("plain or", "3", r"\boxed{2 or 3}"),
    ("list of many values", "3", r"\boxed{1, 2, 3, 4, 5}"),
    ("set containing the answer", "3", r"\boxed{\{2, 3\}}"),
    ("two boxes joined by or", "3", r"It is \boxed{2} or \boxed{3}."),
    ("extra values beyond the expected ones", "1, -2", r"\boxed{1, -2, 3}"),
]


def _check(verdict, correct, status):
    assert verdict.correct is correct, verdict
    assert verdict.status == status, verdict
    assert verdict.score == (1.0 if correct else 0.0)


@pytest.mark.parametrize("name, reference, completion, correct, status", EQUIVALENCE, ids=[r[0] for r in EQUIVALENCE])
def test_equivalence(math_verifier, name, reference, completion, correct, status):
    _check(math_verifier.verify(completion, reference), correct, status)


@pytest.mark.parametrize("name, reference, completion, correct, status", EXTRACTION, ids=[r[0] for r in EXTRACTION])
def test_extraction(math_verifier, name, reference, completion, correct, status):
    _check(math_verifier.verify(completion, reference), correct, status)


@pytest.mark.parametrize("name, reference, completion", HEDGES, ids=[r[0] for r in HEDGES])
def test_hedging_earns_nothing(math_verifier, name, reference, completion):
    verdict = math_verifier.verify(completion, reference)
    assert verdict.correct is False and verdict.score == 0.0
    assert verdict.status == "hedged", verdict


def test_repeating_the_same_value_is_not_a_hedge(math_verifier):
    _check(math_verifier.verify(r"\boxed{3} so again \boxed{3}", "3"), True, "ok")


def test_extracted_answer_and_details_are_reported(math_verifier):
    verdict = math_verifier.verify(r"so \boxed{\frac{1}{2}}", "0.5")
    assert verdict.extracted == r"\frac{1}{2}"
    assert verdict.details["source"] == "boxed"


def test_bad_reference_is_a_status_not_an_exception(math_verifier):
    for reference in (None, "", "   "):
        verdict = math_verifier.verify(r"\boxed{1}", reference)
        assert verdict.status == "invalid_reference" and verdict.score == 0.0


def test_garbage_completions_never_raise(math_verifier):
    for completion in (None, 12, b"bytes", {"role": "user"}, r"\boxed{\frac{", r"\boxed{)(}", "}" * 1000):
        verdict = math_verifier.verify(completion, "3")
        assert verdict.score == 0.0


PATHOLOGICAL = [
    ("power tower", r"\boxed{9^{9^{9^9}}}"),
    ("huge factorial", r"\boxed{(10^{10})!}"),
    ("huge power", r"\boxed{2^{2^{2^{2^{2^{2}}}}}}"),
]


@pytest.mark.parametrize("name, completion", PATHOLOGICAL, ids=[p[0] for p in PATHOLOGICAL])
def test_pathological_input_times_out_quickly(name, completion):
    with MathVerifier(timeout=1.0, workers=1) as verifier:
        verifier.verify(r"\boxed{x+1}", "1+x")  # the worker's start-up is not what this test times
        start = time.monotonic()
        verdict = verifier.verify(completion, "3")
        elapsed = time.monotonic() - start
    assert verdict.score == 0.0 and not verdict.correct
    assert verdict.status in ("timeout", "ok"), verdict
    assert elapsed < 5, f"took {elapsed:.1f}s"


def test_pathological_sample_does_not_stall_its_neighbours(math_verifier):
    completions = [r"\boxed{9^{9^{9^9}}}"] + [rf"\boxed{{\frac{{{i}}}{{2}}}}" for i in range(1, 9)]
    references = ["3"] + [str(i / 2) for i in range(1, 9)]
    start = time.monotonic()
    verdicts = math_verifier.verify_batch(completions, references)
    elapsed = time.monotonic() - start
    assert verdicts[0].status == "timeout"
    assert all(v.correct for v in verdicts[1:]), verdicts
    assert elapsed < 10


def test_huge_and_adversarial_completions_finish(math_verifier):
    adversarial = [
        "the answer is " * 50_000,
        "<answer>" * 50_000,
        "<answer>" * 50_000 + "</answer>",
        "\\boxed{" * 20_000,
        "{" * 100_000 + "\\boxed{3}",
        "x " * 500_000 + r"\boxed{3}",
        "Answer:" + " " * 100_000 + "3",
    ]
    start = time.monotonic()
    verdicts = math_verifier.verify_batch(adversarial, ["3"] * len(adversarial))
    assert time.monotonic() - start < 20
    assert [v.correct for v in verdicts] == [False] * 4 + [True] * 3


def test_timeout_works_from_worker_threads(math_verifier):
    verdicts = []

    def judge():
        verdicts.append(math_verifier.verify(r"\boxed{9^{9^{9^9}}}", "3"))
        verdicts.append(math_verifier.verify(r"\boxed{0.25}", r"\frac14"))

    thread = threading.Thread(target=judge)
    thread.start()
    thread.join(timeout=30)
    assert [v.status for v in verdicts] == ["timeout", "ok"]
    assert verdicts[1].correct


def test_batch_gives_the_same_verdicts_as_single_calls(math_verifier):
    rows = EQUIVALENCE + EXTRACTION
    completions = [r[2] for r in rows]
    references = [r[1] for r in rows]
    batch = math_verifier.verify_batch(completions, references)
    single = [math_verifier.verify(c, r) for c, r in zip(completions, references, strict=False)]
    assert [(v.correct, v.status, v.extracted) for v in batch] == [(v.correct, v.status, v.extracted) for v in single]


def test_batch_length_mismatch_is_a_clear_error(math_verifier):
    with pytest.raises(rk.VerifierError, match="one reference per completion"):
        math_verifier.verify_batch(["a", "b"], ["1"])


def test_verifier_pickles_without_its_workers():
    with MathVerifier(workers=1) as verifier:
        verifier.verify(r"\boxed{2}", "2")
        clone = pickle.loads(pickle.dumps(verifier))
    with clone:
        assert clone.verify(r"\boxed{0.5}", r"\frac12").correct


def test_close_releases_the_workers():
    verifier = MathVerifier(workers=2)
    verifier.verify(r"\boxed{x+1}", "1+x")
    pids = verifier.pool.pids()
    verifier.close()
    import os

    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_bad_parameters_fail_at_construction():
    with pytest.raises(rk.ConfigError, match="timeout"):
        rk.get_verifier("math", timeout=0)
    with pytest.raises(rk.ConfigError, match="accepts: timeout, workers, grace"):
        rk.get_verifier("math", tolerance=0.1)


def test_extract_then_compare_stages_are_usable_alone():
    found = extract_answer(r"\boxed{-2} and \boxed{1}")
    assert found is not None and found.values == ("-2", "1")
    assert split_values(r"x=1 \text{ or } x=-2") == ["x=1", "x=-2"]  # labels go at comparison
    assert split_values("1,000") == ["1000"]


def test_cli_verify_math_prints_the_verdict():
    import json

    from click.testing import CliRunner

    from rewardkit.cli import main

    runner = CliRunner()
    result = runner.invoke(main, ["verify", "math", "--reference", r"\frac12", r"The answer is \boxed{0.5}"])
    assert result.exit_code == 0, result.output
    verdict = json.loads(result.output)
    assert verdict["correct"] is True and verdict["status"] == "ok" and verdict["extracted"] == "0.5"
    hedge = runner.invoke(main, ["verify", "math", "-r", "3", "-p", "timeout=2", r"\boxed{2 \text{ or } 3}"])
    assert json.loads(hedge.output)["status"] == "hedged"
    bad = runner.invoke(main, ["verify", "math", "-r", "3", "-p", "tolerance=2", r"\boxed{3}"])
    assert bad.exit_code != 0 and "accepts: timeout, workers, grace" in bad.output
