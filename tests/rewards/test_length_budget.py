"""length_budget: L1's exact and max rewards, the budget from a column or the prompt, tokens or words."""

from __future__ import annotations

import math
import pickle

import pytest

import rewardkit as rk
from rewardkit.rewards.length_budget import l1_exact, l1_max
from rewardkit.rewards.length_count import thinking_text


def words(n: int, answer: str = "4") -> str:
    """A completion of exactly ``n`` words whose last word boxes ``answer``."""
    return " ".join(["step"] * (n - 1) + [rf"\boxed{{{answer}}}"])


def values(reward, **call):
    return [row["reward"] for row in reward.explain(**call)]


def test_exact_mode_subtracts_alpha_times_the_distance_from_the_budget_either_way():
    reward = rk.get_reward("length_budget", mode="exact", alpha=0.01)
    got = values(
        reward, completions=[words(20), words(30), words(40), words(30, "5")], answer=["4"] * 4, num_tokens=[30] * 4
    )
    assert got == pytest.approx([1 - 0.1, 1.0, 1 - 0.1, -0.0])


def test_max_mode_pays_correct_answers_under_budget_fully_and_fades_them_out_past_it():
    reward = rk.get_reward("length_budget", mode="max", alpha=0.01, delta=0.5)
    got = values(
        reward,
        completions=[words(10), words(30), words(60), words(200), words(10, "5")],
        answer=["4"] * 5,
        num_tokens=[30] * 5,
    )
    # under by 20: 0.7; at: 0.5; over by 30: 0.2; far over: clipped to 0; wrong: 0 whatever its length
    assert got == pytest.approx([0.7, 0.5, 0.2, 0.0, 0.0])


def test_a_row_without_a_budget_is_none_with_a_status_not_zero():
    reward = rk.get_reward("length_budget", alpha=0.01)
    rows = reward.explain(
        prompts=["What is 2+2?", "What is 2+2?"],
        completions=[words(5), words(5)],
        answer=["4", "4"],
        num_tokens=[None, float("nan")],
    )
    assert [r["reward"] for r in rows] == [None, None]
    assert [r["status"] for r in rows] == ["no_budget", "no_budget"]


def test_bad_budget_values_get_invalid_budget_and_l1s_minus_one_means_no_budget():
    reward = rk.get_reward("length_budget", alpha=0.01)
    rows = reward.explain(completions=[words(5)] * 4, answer=["4"] * 4, num_tokens=["lots", 0, 2.5, -1])
    assert [r["status"] for r in rows] == ["invalid_budget", "invalid_budget", "invalid_budget", "no_budget"]
    assert all(r["reward"] is None for r in rows)


def test_the_budget_is_read_from_l1s_prompt_phrasing_when_no_column_has_it():
    reward = rk.get_reward("length_budget", mode="exact", alpha=0.01)
    prompts = ["What is 2+2? Think for 10 tokens.", [{"role": "user", "content": "2+2? Think for 20 tokens."}]]
    assert values(reward, prompts=prompts, completions=[words(15), words(15)], answer=["4", "4"]) == pytest.approx(
        [1 - 0.05, 1 - 0.05]
    )


def test_the_column_wins_over_the_prompt():
    reward = rk.get_reward("length_budget", mode="exact", alpha=0.01)
    got = values(reward, prompts=["Think for 100 tokens."], completions=[words(10)], answer=["4"], num_tokens=[10])
    assert got == pytest.approx([1.0])


def test_auto_mode_reads_max_from_the_prompt_or_a_negative_column_value_as_l1_does():
    reward = rk.get_reward("length_budget", mode="auto", alpha=0.01)
    got = values(
        reward,
        prompts=["Think for maximum 30 tokens.", "Think for 30 tokens.", "x"],
        completions=[words(10)] * 3,
        answer=["4"] * 3,
        num_tokens=[None, None, -30],
    )
    assert got == pytest.approx([l1_max(1, 30, 10, 0.01, 0.5), l1_exact(1, 30, 10, 0.01), l1_max(1, 30, 10, 0.01, 0.5)])


def test_a_configured_pattern_finds_another_phrasing():
    reward = rk.get_reward("length_budget", alpha=0.01, budget_key=None, budget_pattern=r"in about (\d+) words")
    assert values(reward, prompts=["Answer in about 12 words."], completions=[words(10)], answer=["4"]) == (
        pytest.approx([1 - 0.02])
    )


def test_tokens_come_from_trls_completion_ids_when_the_call_has_them():
    reward = rk.get_reward("length_budget", mode="exact", alpha=0.01)
    ids = [[1] * 30, [1] * 50]
    got = reward(completions=[words(3), words(3)], answer=["4", "4"], num_tokens=[30, 30], completion_ids=ids)
    assert got == pytest.approx([1.0, 1 - 0.2])  # 3 words, but 30 and 50 tokens


def test_unit_words_ignores_completion_ids():
    reward = rk.get_reward("length_budget", mode="exact", alpha=0.01, unit="words")
    got = reward(completions=[words(30)], answer=["4"], num_tokens=[30], completion_ids=[[1] * 90])
    assert got == pytest.approx([1.0])


def test_unit_tokens_without_ids_or_tokenizer_is_a_config_error_that_says_what_to_set():
    reward = rk.get_reward("length_budget", unit="tokens")
    with pytest.raises(rk.ConfigError, match="tokenizer"):
        reward(completions=[words(3)], answer=["4"], num_tokens=[30])


def test_count_thinking_counts_only_the_think_block():
    reward = rk.get_reward("length_budget", mode="exact", alpha=0.01, count="thinking")
    completion = "<think>" + " ".join(["w"] * 20) + r"</think> so many words after the thinking \boxed{4}"
    assert values(reward, completions=[completion], answer=["4"], num_tokens=[20]) == pytest.approx([1.0])


@pytest.mark.parametrize(
    ("text", "thought"),
    [
        ("<think>a b</think>answer", "a b"),
        ("a b</think>answer", "a b"),  # the chat template opened the block in the prompt
        ("<think>a b c", "a b c"),  # cut off mid-thought
        ("no thinking at all", ""),
    ],
    ids=["closed", "opened-by-prompt", "never-closed", "none"],
)
def test_thinking_text(text, thought):
    assert thinking_text(text) == thought


def test_counting_thinking_in_tokens_needs_a_tokenizer_even_with_completion_ids():
    reward = rk.get_reward("length_budget", count="thinking", unit="tokens")
    with pytest.raises(rk.ConfigError, match="completion_ids cover the whole completion"):
        reward(completions=["<think>a</think>4"], answer=["4"], num_tokens=[3], completion_ids=[[1, 2, 3]])


def test_correctness_can_be_any_reward_given_as_a_spec_node():
    reward = rk.get_reward("length_budget", mode="max", alpha=0.01, correctness={"reward": "mcq_accuracy"})
    got = values(
        reward,
        completions=["The answer is (B)", "The answer is (C)"],
        answer=["B", "B"],
        options=[["x", "y", "z"]] * 2,
        num_tokens=[4, 4],
    )
    assert got == pytest.approx([0.5, 0.0])


def test_a_missing_reference_gives_none_as_the_correctness_term_does():
    reward = rk.get_reward("length_budget", alpha=0.01)
    assert values(reward, completions=[words(3)], answer=[None], num_tokens=[3]) == [None]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"mode": "shortest"}, "mode"),
        ({"alpha": -1.0}, "alpha"),
        ({"budget_key": None, "budget_pattern": None}, "budget_key"),
        ({"budget_pattern": "(unclosed"}, "regex"),
        ({"budget_pattern": "no group here"}, "group"),
        ({"correctness": "math_acuracy"}, "math_accuracy"),
        ({"correctness": {"reward": "math_accuracy", "weight": 2}}, "weight"),
        ({"unit": "chars"}, "unit"),
    ],
)
def test_bad_parameters_fail_when_the_reward_is_built(params, message):
    with pytest.raises(rk.ConfigError, match=message):
        rk.get_reward("length_budget", **params)


def test_in_a_spec_the_reward_composes_and_pickles():
    reward = rk.build_reward(
        {
            "combine": "sum",
            "terms": [
                {"reward": "length_budget", "params": {"mode": "max", "alpha": 0.01}},
                {"reward": "tag_format", "weight": 0.0},
            ],
        }
    )
    again = pickle.loads(pickle.dumps(reward))
    got = again(completions=[words(10)], answer=["4"], num_tokens=[30])
    assert got == pytest.approx([0.7])
    assert math.isclose(got[0], l1_max(1.0, 30, 10, 0.01, 0.5))
