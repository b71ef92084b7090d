"""The ifeval_accuracy reward on google/IFEval and open-instruct columns as TRL passes them."""

from __future__ import annotations

import json

import pytest

import rewardkit as rk

pytest.importorskip("langdetect", reason="the ifeval extra (langdetect) is not installed")

NONE_KWARGS = {"num_words": None, "relation": None, "keywords": None, "prompt_to_repeat": None}


def test_google_ifeval_columns_score_each_row():
    with rk.get_reward("ifeval_accuracy") as reward:
        got = reward(
            completions=["<<Plan>> no commas here", "<<Plan>> one, two", "x"],
            prompts=["p1", "p2", "p3"],
            key=[1, 2, 3],
            instruction_id_list=[["detectable_format:title", "punctuation:no_comma"]] * 2 + [["made:up"]],
            kwargs=[[NONE_KWARGS, NONE_KWARGS]] * 2 + [[{}]],
        )
    assert got == [1.0, 0.0, None]  # the unknown id: the dataset's fault, no reward


def test_fraction_and_loose_are_reward_params():
    with rk.get_reward("ifeval_accuracy", aggregate="fraction", mode="loose") as reward:
        got = reward(
            completions=["<<T>> a, b", "Here it is:\n<<T>> a, b"],
            instruction_id_list=[["detectable_format:title", "punctuation:no_comma"]] * 2,
        )
    assert got == [0.5, 1.0]  # loose: the first line alone has no comma


def test_open_instruct_ground_truth_and_the_prompt_for_repeat_prompt():
    truth = json.dumps({"instruction_id": ["combination:repeat_prompt"], "kwargs": [None]})
    chat_prompt = [{"role": "user", "content": "Name a colour."}]
    with rk.get_reward("ifeval_accuracy") as reward:
        got = reward(
            completions=["Name a colour. Blue.", "Blue."],
            prompts=[chat_prompt, chat_prompt],
            ground_truth=[truth, truth],
        )
    assert got == [1.0, 0.0]


def test_a_bad_parameter_fails_when_the_spec_is_built():
    with pytest.raises(rk.ConfigError, match="mode must be one of strict, loose"):
        rk.build_reward({"reward": "ifeval_accuracy", "params": {"mode": "sloppy"}})
