"""What the text after the final answer does with it, read from its structure (issue 19, item 1 and 5): a
check, a restatement, a second method or a rejected value keeps the credit; a change of answer, a second final
answer, an alternative, a retraction, the later branch of a case analysis, a check that lands on the reference
by coincidence and a completion that never left its think block earn none. The rows are math_endings.py."""

from __future__ import annotations

import pytest
from math_endings import ALL, MIXED, SELF_CHECKS

import rewardkit as rk
from rewardkit.verifiers.math_answer.ending import read_ending, sentences
from rewardkit.verifiers.math_answer.extract import extract_answer


@pytest.fixture(scope="module")
def lenient():
    with rk.get_verifier("math", workers=2, timeout=10) as verifier:
        yield verifier


@pytest.mark.parametrize("name, reference, completion, expected", ALL, ids=[r[0] for r in ALL])
def test_an_ending_keeps_or_loses_the_credit(lenient, name, reference, completion, expected):
    verdict = lenient.verify(completion, reference)
    assert verdict.correct is expected, verdict
    if not expected and extract_answer(completion) is not None:
        committed = extract_answer(completion)
        if committed is not None and (committed.proposals or committed.retracted):
            assert verdict.status == "hedged", verdict


def test_a_batch_judges_the_endings_as_one_at_a_time_does(lenient):
    rows = SELF_CHECKS[:10] + MIXED[:20]
    batch = lenient.verify_batch([r[2] for r in rows], [r[1] for r in rows])
    assert [v.correct for v in batch] == [r[3] for r in rows]


@pytest.mark.parametrize(
    "tail",
    [
        " Let me verify: 42 / 6 = 7, which matches.",
        " Check: 6 x 7 = 42 ✓",
        " Wait, is that right? 6 x 7 = 42. Yes.",
        " I should make sure I did not double-count: each chair is in one row.",
        " (A naive count gives 48, but that counts the corners twice.)",
        " Note that 48 would be wrong, since it counts the corners twice.",
        " It is not 48.",
        " No wait, let me re-check the multiplication: 6 x 7 = 42. Good.",
        " On reflection, this makes sense: 42 is 6 times 7.",
    ],
)
def test_checks_and_rejections_propose_nothing_different(tail):
    ending = read_ending(tail, ("42",))
    assert ending.retracted is None
    assert all(any(side.strip() == "42" for side in p.sides) for p in ending.proposals), ending


@pytest.mark.parametrize(
    "tail, value",
    [
        (" Wait, that's wrong: it is 48.", "48"),
        (" However, I double-counted the corners, so the real total is 38.", "38"),
        (" On reflection, the corners were counted twice; the correct count is 38.", "38"),
        (" Hmm, but it could also be 8.", "8"),
        (" unless the tables are round, in which case it is 60.", "60"),
        (", or 16 with repetition.", "16"),
        (" Or maybe 16, if repetition is allowed.", "16"),
        (" Actually it's 2^7 = 128, I miscounted the doublings.", "128"),
        (" Wait, I forgot to subtract the 6 broken ones, so it is 36.", "36"),
        (" But $x = -3$ also works.", "-3"),
        (" Or is it 40? I'm not sure.", "40"),
    ],
)
def test_changes_and_alternatives_propose_the_other_value(tail, value):
    ending = read_ending(tail, ("42",))
    assert any(value in p.sides for p in ending.proposals), ending


@pytest.mark.parametrize(
    "tail",
    [
        " However, I double-counted the corners.",
        " But that doesn't satisfy the second condition.",
        " Hmm, I think I made an error in step 2.",
        " Hmm, that's not right.",
    ],
)
def test_a_retraction_with_nothing_in_its_place_is_kept(tail):
    assert read_ending(tail, ("42",)).retracted is not None


def test_a_retraction_is_undone_by_a_later_confirmation():
    ending = read_ending(
        " Wait, did I double-count? Hmm, I double-counted the corners. No: each is counted once, so 42 is right.",
        ("42",),
    )
    assert ending.retracted is None


def test_a_retracted_answer_is_hedged_whatever_the_reference(lenient):
    for reference in ("42", "38"):
        verdict = lenient.verify(r"\boxed{42}. However, I double-counted the corners.", reference)
        assert (verdict.score, verdict.status) == (0.0, "hedged")
        assert "takes its answer back" in verdict.details["reason"]


def test_an_unclosed_think_block_is_no_answer_in_both_modes():
    completion = "<think>\nSo the total is 17, but let me verify: 10 + 7 = 17"
    for mode in ("lenient", "strict"):
        with rk.get_verifier("math", workers=1, extraction=mode) as verifier:
            verdict = verifier.verify(completion + r" \boxed{17}", "17")
        assert (verdict.correct, verdict.status) == (False, "no_answer")
        assert "never closed" in verdict.details["reason"]


def test_a_second_think_block_left_open_is_no_answer():
    assert extract_answer("<think>a</think> The answer is 3. <think> but maybe 4") is None


def test_sentences_do_not_split_inside_math():
    text = "We get $x = 3. 5$ here. Then $$a.\nb$$ ends. Last one"
    assert [text[s:e] for s, e in sentences(text)] == ["We get $x = 3. 5$ here.", "Then $$a.\nb$$ ends.", "Last one"]


def test_the_ending_is_read_from_a_bounded_tail():
    long_check = " Let me verify: 6 x 7 = 42." * 2_000 + " Actually it is 48."
    assert read_ending(long_check, ("42",)).proposals == ()  # beyond TAIL_CHARS: the check goes on too long
