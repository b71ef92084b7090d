"""The reward names of open-r1's recipes resolve to our rewards and agree with open-r1 on its own test cases
(huggingface/open-r1 tests/test_rewards.py, commit 1416fa0), completions given as open-r1 gives them."""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner

import rewardkit as rk
from rewardkit.cli import main
from rewardkit.plugins.manager import default_host
from rewardkit.rewards.open_r1_aliases import OPEN_R1_ALIASES


def chat(*contents: str) -> list[list[dict[str, str]]]:
    return [[{"content": c}] for c in contents]  # open-r1's shape: one message, no role


def test_every_open_r1_name_resolves_in_a_spec_by_name_and_as_a_label():
    registry = default_host().registries.rewards
    for name in ("accuracy", "format", "tag_count", "reasoning_steps", "cosine", "repetition_penalty", "code"):
        assert name in registry
        assert rk.get_reward(name).__name__ == name
    spec = {"combine": "sum", "terms": ["accuracy", {"reward": "format", "weight": 0.1}, "tag_count"]}
    with rk.build_reward(spec) as reward:
        rows = reward.explain(
            completions=chat("<think>\nx\n</think>\n<answer>\n\\boxed{2}\n</answer>"), solution=["2"], answer=["9"]
        )
    assert rows[0]["components"] == {"accuracy": 1.0, "format": 1.0, "tag_count": 1.0}  # `solution` before `answer`


def test_an_alias_never_shadows_a_registered_name(rewardkit_register):
    registry = default_host().registries.rewards
    for name, alias in OPEN_R1_ALIASES.items():
        assert name not in registry.names() and alias.target in registry.names()

    class Mine:
        @rk.hookimpl
        def register_rewards(self, register):
            register("format", lambda prompts, completions, **kw: [7.0] * len(completions))

    rewardkit_register(Mine(), name="rewardkit-test-own-format")
    assert rk.get_reward("format")(completions=["x"]) == [7.0]
    assert "format" not in default_host().registries.rewards.aliases()


def test_rewardkit_plugins_lists_aliases_as_aliases():
    result = CliRunner().invoke(main, ["plugins"])
    assert result.exit_code == 0, result.output
    assert "reward aliases: accuracy -> math_accuracy (open-r1), format -> tag_format (open-r1)" in result.output
    rows = json.loads(CliRunner().invoke(main, ["plugins", "--json"]).output)
    builtin = next(r for r in rows if r["name"] == "rewardkit.rewards.builtin")
    assert "accuracy" not in builtin["registered"]["reward"]
    assert "cosine -> cosine_length (open-r1)" in builtin["registered"]["reward alias"]


def test_an_unknown_name_suggests_an_alias_and_lists_them():
    with pytest.raises(rk.ConfigError, match=r"aliases: accuracy, code, cosine, format.*Did you mean 'accuracy'"):
        rk.build_reward({"reward": "acuracy"})


@pytest.mark.parametrize(
    ("completion", "solution", "expected"),
    [
        (r"\boxed{\frac{63}{400}}", r"\frac{63}{400}", 1.0),  # test_accuracy_reward_correct_answer
        (r"\boxed{\frac{64}{400}}", r"\frac{63}{400}", 0.0),  # test_accuracy_reward_wrong_answer
        (r"\boxed{3}", "6", 0.0),  # test_accuracy_reward_wrong_answer_no_latex
    ],
)
def test_accuracy_agrees_with_open_r1(completion, solution, expected):
    assert rk.get_reward("accuracy")(completions=chat(completion), solution=[solution]) == [expected]


FORMAT_CASES = [
    ("<think>\nSome reasoning\n</think>\n<answer>\nThe answer\n</answer>", 1.0),
    ("<think>Only thinking</think>", 0.0),
    ("<answer>Only answer</answer>", 0.0),
    ("No tags at all", 0.0),
    ("<think>Missing closing</think><answer>Missing closing", 0.0),
    ("<think>Wrong order</answer><answer>Wrong order</think>", 0.0),
    (
        "<think>\nI will count each distinct object in the image:\n1. Purple scooter\n2. Red bicycle\n3. Green "
        "motorcycle\n\nThere are 3 distinct objects in total.\n</think>\n<answer>\n3\n</answer>",
        1.0,
    ),
]


def test_format_agrees_with_open_r1():
    contents = [c for c, _ in FORMAT_CASES]
    assert rk.get_reward("format")(completions=chat(*contents)) == [e for _, e in FORMAT_CASES]


def test_tag_count_agrees_with_open_r1():
    cases = [
        ("<think>\nSome reasoning\n</think>\n<answer>\nThe answer\n</answer>", 1.0),
        ("Some reasoning\n</think>\n<answer>\nThe answer\n</answer>", 0.75),
        ("<think>\nSome reasoning\n<answer>\nThe answer\n</answer>", 0.75),
        ("<think>\nSome reasoning\n</think>\nThe answer\n</answer>", 0.75),
        ("<think>\nSome reasoning\n</think>\n<answer>\nThe answer", 0.75),
        ("Some reasoning\nThe answer", 0.0),
    ]
    assert rk.get_reward("tag_count")(completions=chat(*[c for c, _ in cases])) == [e for _, e in cases]


def test_reasoning_steps_agrees_with_open_r1():
    cases = [
        ("Step 1: First step\nStep 2: Second step\nStep 3: Third step", 1.0),
        ("First, we do this.\nSecond, we do that.\nFinally, we conclude.", 1.0),
        ("Step 1: Only step", 1 / 3),
        ("First, we do this.\nFinally, we conclude.", 2 / 3),
        ("Just plain text without any clear steps", 0.0),
    ]
    got = rk.get_reward("reasoning_steps")(completions=chat(*[c for c, _ in cases]))
    assert got == pytest.approx([e for _, e in cases])


@pytest.mark.parametrize(
    ("params", "content", "expected"),
    [
        ({"ngram_size": 2}, "this is a test sentence", 0.0),
        ({"ngram_size": 2}, "this this this this this", -0.75),
        ({"ngram_size": 2}, "this is a this is a test", -1 / 3),
        ({"ngram_size": 3, "max_penalty": -0.5}, "test test test test", -0.25),
        ({"ngram_size": 2}, "", 0.0),
        ({"ngram_size": 3, "max_penalty": -2.0}, "this is a this is a test", -0.4),
        ({}, "two words", 0.0),
        ({}, "word word word word", -0.5),
        ({}, "one two one two", 0.0),
    ],
)
def test_repetition_penalty_agrees_with_open_r1(params, content, expected):
    assert rk.get_reward("repetition_penalty", **params)(completions=chat(content)) == [pytest.approx(expected)]


def _padded(content: str, length: int) -> str:
    return content + " " * (length - len(content))


def test_cosine_agrees_with_open_r1_on_its_test_parameters():
    # open-r1's test: max_len 100, min_value_wrong -1.0 (its function's default; its recipes' is 0.0)
    reward = rk.get_reward("cosine", max_length=100, wrong_short=-1.0)
    right, wrong = r"\boxed{\frac{63}{400}}", r"\boxed{\frac{64}{400}}"
    contents = [_padded(right, 20), _padded(right, 80), _padded(wrong, 20), _padded(wrong, 80)]
    got = reward(completions=chat(*contents), solution=[r"\frac{63}{400}"] * 4)
    assert got == pytest.approx([0.943, 0.547, -0.942, -0.547], abs=5e-3)


def test_cosine_has_open_r1_recipe_defaults_in_characters():
    reward = rk.get_reward("cosine")
    right, wrong = r"\boxed{2}", r"\boxed{3}"
    contents = [_padded(right, 1000), _padded(wrong, 1000), _padded(wrong, 500)]
    got = reward(completions=chat(*contents), solution=["2"] * 3, completion_ids=[[1]] * 3)  # ids: not counted
    assert got == pytest.approx([0.5, -0.5, -0.25])


def test_code_reads_open_r1s_verification_info_column():
    reward: Any = rk.get_reward("code")
    assert type(reward).__name__ == "CodeReward" and reward.reference_key == "verification_info"
    assert reward.verifier_name == "code"
    # a row without verification_info is not judged (None), even when another test column is there
    assert reward(completions=["print(1)"], verification_info=[None], tests=["assert True"]) == [None]
