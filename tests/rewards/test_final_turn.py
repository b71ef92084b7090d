"""Multi-turn chat completions: verifiers judge the final assistant turn unless a reward asks for all turns."""

from __future__ import annotations

import rewardkit as rk
from rewardkit.rewards.inputs import final_turn


def turns(*texts: str) -> list[dict]:
    out: list[dict] = []
    for text in texts:
        out += [{"role": "assistant", "content": text}, {"role": "user", "content": "Are you sure?"}]
    return out[:-1]


DRAFT_THEN_FINAL = turns(r"My first guess is \boxed{41}.", "Checking again, 6 * 7 is\n42")
MCQ_DRAFT_THEN_FINAL = turns("Answer: A", "Sorry, London is the capital. Answer: B")


def test_math_reads_the_final_turn_not_the_draft_before_it():
    with rk.get_reward("math_accuracy") as reward:
        assert reward(prompts=None, completions=[DRAFT_THEN_FINAL], answer=["42"]) == [1.0]
    with rk.get_reward("math_accuracy", turns="all") as reward:  # both turns read: two answers
        assert reward(prompts=None, completions=[DRAFT_THEN_FINAL], answer=["42"]) == [0.0]
    assert rk.get_verifier("math").verify(DRAFT_THEN_FINAL, "42").correct


def test_a_right_draft_followed_by_a_wrong_final_answer_earns_nothing():
    wrong_final = turns(r"\boxed{42}", r"No wait, it is \boxed{48}.")
    with rk.get_reward("math_accuracy") as reward:
        assert reward(prompts=None, completions=[wrong_final], answer=["42"]) == [0.0]


def test_mcq_reads_the_final_turn():
    options = [["Paris", "London", "Berlin", "Madrid"]]
    with rk.get_reward("mcq_accuracy") as reward:
        assert reward(prompts=None, completions=[MCQ_DRAFT_THEN_FINAL], answer=["B"], options=options) == [1.0]
    with rk.get_reward("mcq_accuracy", turns="all") as reward:
        extra: list = []
        values = reward(
            prompts=None,
            completions=[MCQ_DRAFT_THEN_FINAL],
            answer=["B"],
            options=options,
            log_extra=lambda c, v: extra.append((c, v)),
        )
        assert values == [0.0]
    assert rk.get_verifier("mcq").verify(MCQ_DRAFT_THEN_FINAL, "B", options=options[0]).correct


def test_tool_calls_from_all_turns_when_the_reward_asks():
    call = '<tool_call>{"name": "f", "arguments": {}}</tool_call>'
    other = '<tool_call>{"name": "g", "arguments": {}}</tool_call>'
    chat = turns(call, other)
    reference = [[{"name": "f", "arguments": {}}, {"name": "g", "arguments": {}}]]
    with rk.get_reward("tool_call_accuracy") as reward:
        assert reward(prompts=None, completions=[chat], answer=reference) == [0.0]
    with rk.get_reward("tool_call_accuracy", turns="all") as reward:
        assert reward(prompts=None, completions=[chat], answer=reference) == [1.0]


def test_final_turn_skips_empty_and_non_assistant_messages():
    chat = [
        {"role": "assistant", "content": "first"},
        {"role": "assistant", "content": "last"},
        {"role": "assistant", "content": ""},
        {"role": "tool", "content": "result"},
    ]
    assert final_turn(chat) == [chat[1]]
    assert final_turn("plain") == "plain"
    assert final_turn([{"role": "user", "content": "hi"}]) == []
