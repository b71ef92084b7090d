"""group_length: Kimi k1.5's length reward within each prompt's group, and groups cut short."""

from __future__ import annotations

import pytest

import rewardkit as rk
from rewardkit.rewards.group_length import kimi_length


def words(n: int, answer: str = "4") -> str:
    return " ".join(["step"] * (n - 1) + [rf"\boxed{{{answer}}}"])


def explain(reward, prompts, completions, **columns):
    return reward.explain(prompts=prompts, completions=completions, answer=["4"] * len(completions), **columns)


def test_correct_completions_earn_from_half_for_the_shortest_to_minus_half_for_the_longest():
    reward = rk.get_reward("group_length")
    rows = explain(reward, ["p"] * 3, [words(10), words(20), words(30)])
    assert [r["reward"] for r in rows] == pytest.approx([0.5, 0.0, -0.5])


def test_wrong_completions_are_only_penalised_for_being_long():
    reward = rk.get_reward("group_length")
    rows = explain(reward, ["p"] * 3, [words(10, "5"), words(20, "5"), words(30, "5")])
    assert [r["reward"] for r in rows] == pytest.approx([0.0, 0.0, -0.5])


def test_lengths_are_compared_within_a_prompt_not_across_the_call():
    reward = rk.get_reward("group_length")
    rows = explain(reward, ["p", "q", "p", "q"], [words(10), words(100), words(20), words(200)])
    assert [r["reward"] for r in rows] == pytest.approx([0.5, 0.5, -0.5, -0.5])


def test_group_key_splits_rows_that_share_a_prompt():
    reward = rk.get_reward("group_length", group_key="uid")
    rows = explain(reward, ["p"] * 4, [words(10), words(20), words(30), words(40)], uid=[1, 1, 2, 2])
    assert [r["reward"] for r in rows] == pytest.approx([0.5, -0.5, 0.5, -0.5])


def test_chat_prompts_group_by_their_messages():
    reward = rk.get_reward("group_length")
    a, b = [{"role": "user", "content": "a"}], [{"role": "user", "content": "b"}]
    rows = explain(reward, [a, b, a, b], [words(5), words(5), words(9), words(6)])
    assert [r["reward"] for r in rows] == pytest.approx([0.5, 0.5, -0.5, -0.5])


def test_a_group_smaller_than_num_generations_gets_none_and_a_status():
    reward = rk.get_reward("group_length", num_generations=2)
    rows = explain(reward, ["p", "p", "q"], [words(10), words(20), words(30)])
    assert [r["reward"] for r in rows[:2]] == pytest.approx([0.5, -0.5])
    assert rows[2]["reward"] is None and rows[2]["status"] == "incomplete_group"


def test_the_same_prompt_twice_in_a_call_is_one_group_of_twice_num_generations():
    reward = rk.get_reward("group_length", num_generations=2)
    rows = explain(reward, ["p"] * 4, [words(10), words(20), words(30), words(40)])
    assert all(r["reward"] is not None for r in rows)


def test_without_num_generations_a_lone_completion_gets_none():
    reward = rk.get_reward("group_length")
    rows = explain(reward, ["p"], [words(10)])
    assert rows[0]["reward"] is None and rows[0]["status"] == "single_completion"


def test_a_group_of_equal_lengths_prefers_none():
    reward = rk.get_reward("group_length")
    rows = explain(reward, ["p"] * 2, [words(10), words(10, "5")])
    assert [r["reward"] for r in rows] == [0.0, 0.0]


def test_tokens_from_completion_ids():
    reward = rk.get_reward("group_length")
    got = reward(
        prompts=["p", "p"], completions=[words(3), words(3)], answer=["4", "4"], completion_ids=[[1] * 40, [1] * 10]
    )
    assert got == pytest.approx([-0.5, 0.5])


def test_a_row_with_no_reference_keeps_its_length_in_the_range_and_gets_none():
    reward = rk.get_reward("group_length")
    rows = reward.explain(prompts=["p"] * 3, completions=[words(10), words(20), words(30)], answer=["4", "4", None])
    assert [r["reward"] for r in rows] == pytest.approx([0.5, 0.0, None])


def test_added_to_correctness_in_a_spec_a_short_correct_answer_beats_a_long_one():
    spec = {"combine": "sum", "terms": ["math_accuracy", {"reward": "group_length", "weight": 0.5}]}
    reward = rk.build_reward(spec)
    got = reward(prompts=["p"] * 3, completions=[words(5), words(50), words(5, "5")], answer=["4"] * 3)
    assert got[0] > got[1] > got[2]


@pytest.mark.parametrize(
    ("length", "correct", "expected"),
    [(0, True, 0.5), (100, True, -0.5), (50, True, 0.0), (25, False, 0.0), (75, False, -0.25)],
)
def test_kimi_formula(length, correct, expected):
    assert kimi_length(length, 0, 100, correct) == pytest.approx(expected)


def test_a_missing_group_key_column_is_a_config_error():
    reward = rk.get_reward("group_length", group_key="uid")
    with pytest.raises(rk.ConfigError, match="uid"):
        reward(prompts=["p", "p"], completions=[words(2), words(3)], answer=["4", "4"])
