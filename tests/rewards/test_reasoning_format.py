"""Reasoning-format rewards: think_format (R1/Qwen3), reasoning_steps and tag_count (open-r1 semantics),
and how tag_format(tags=[think]) differs from think_format."""

from __future__ import annotations

import pytest

import rewardkit as rk


def values(name: str, completions: list, **params) -> list:
    return rk.get_reward(name, **params)(prompts=["q"] * len(completions), completions=completions)


# Our R1 form before TRL parity became the default: every stricter check on, leading whitespace allowed.
R1_STRICT = {"require_answer": True, "allow_empty_think": False, "strict_tags": True, "allow_leading_whitespace": True}

# (completion, default value (TRL's), value with R1_STRICT, what it shows)
THINK_CASES = [
    ("<think>2+2 is 4</think>The answer is 4.", 1.0, 1.0, "think then answer"),
    ("  <think>\nreason\n</think>\n\n**4**", 0.0, 1.0, "whitespace before the think block"),
    ("<think>reason</think>", 1.0, 0.0, "no answer after the think block"),
    ("<think>reason</think>   \n ", 1.0, 0.0, "only whitespace after the think block"),
    ("<think></think>4", 1.0, 0.0, "empty thinking"),
    ("<think>  \n</think>4", 1.0, 0.0, "blank thinking"),
    ("<think>a</think>4</think>", 1.0, 0.0, "a stray closing tag"),
    ("Sure! <think>reason</think>4", 0.0, 0.0, "text before the think block"),
    ("<think>a</think>4<think>b</think>5", 0.0, 0.0, "two think blocks"),
    ("<think>never closed, out of tokens", 0.0, 0.0, "unclosed think block"),
    ("4", 0.0, 0.0, "no think block"),
    ("</think>4", 0.0, 0.0, "closing tag only"),
]


@pytest.mark.parametrize(("completion", "default", "strict", "why"), THINK_CASES, ids=[c[3] for c in THINK_CASES])
def test_think_format(completion, default, strict, why):
    assert values("think_format", [completion]) == [default]
    assert values("think_format", [completion], **R1_STRICT) == [strict]


# (the one parameter, a completion the default pays or not, its value with that parameter)
ONE_PARAMETER = [
    ({"require_answer": True}, "<think>r</think> \n", 0.0),
    ({"allow_empty_think": False}, "<think>\n\n</think>\n\n4", 0.0),
    ({"strict_tags": True}, "<think>r</think>4</think>", 0.0),
    ({"allow_leading_whitespace": True}, "\n<think>r</think>4", 1.0),
]


@pytest.mark.parametrize(
    ("params", "completion", "expected"), ONE_PARAMETER, ids=[next(iter(p[0])) for p in ONE_PARAMETER]
)
def test_think_format_each_parameter_changes_only_its_own_check(params, completion, expected):
    assert values("think_format", [completion]) == [1.0 - expected]
    assert values("think_format", [completion], **params) == [expected]
    # the well-formed completion is paid whatever the parameter
    assert values("think_format", ["<think>r</think>4"], **params) == [1.0]


def test_think_format_on_chat_completions_and_reasoning_content():
    chat = [
        [{"role": "assistant", "content": "<think>r</think>4"}],
        [{"role": "assistant", "reasoning_content": "r", "content": "4"}],  # vLLM/TRL reasoning parser
        [{"role": "assistant", "reasoning_content": "r", "content": ""}],
    ]
    assert values("think_format", chat) == [1.0, 1.0, 1.0]
    assert values("think_format", chat, require_answer=True) == [1.0, 1.0, 0.0]


def test_think_format_prefix():
    # templates like DeepSeek-R1's end the prompt with "<think>\n": the completion starts mid-thought
    assert values("think_format", ["reason</think>4", "4"], prefix="<think>\n") == [1.0, 0.0]
    assert values("think_format", ["reason</think>4"]) == [0.0]


def test_tag_format_with_think_alone_checks_the_whole_completion_is_the_block():
    """The documented difference: tag_format pays for completions made only of the listed blocks."""
    completions = ["<think>r</think>", "<think>r</think>The answer is 4."]
    assert values("tag_format", completions, tags=["think"]) == [1.0, 0.0]
    assert values("think_format", completions, require_answer=True) == [0.0, 1.0]


STEP_CASES = [
    ("Step 1: add\nStep 2: carry\nStep 3: done", 1.0, "three Step N: lines"),
    ("1. add\n2. carry\n3. done\n4. check", 1.0, "more than min_steps is capped at 1"),
    ("First, add.\nThen, carry.", 2 / 3, "transition words"),
    ("- a\n* b\n\u2022 c", 1.0, "bullets"),
    ("Step 1: Step 2: Step 3: Step 4:", 1 / 3, "markers on one line count once"),
    ("1.\n2.\n3.", 0.0, "markers without text are not steps"),
    ("1.5 is more than 1.2", 0.0, "a decimal number is not a list item"),
    ("The answer is 4.", 0.0, "no steps"),
]


@pytest.mark.parametrize(("completion", "expected", "why"), STEP_CASES, ids=[c[2] for c in STEP_CASES])
def test_reasoning_steps(completion, expected, why):
    assert values("reasoning_steps", [completion]) == [pytest.approx(expected)]


def test_reasoning_steps_min_steps_and_think_region():
    text = "<think>1. a\n2. b</think>\n- answer one\n- answer two"
    assert values("reasoning_steps", [text], min_steps=4) == [1.0]
    assert values("reasoning_steps", [text], min_steps=4, region="think") == [0.5]


TAG_COUNT_CASES = [
    ("<think>\nreason\n</think>\n<answer>\n4\n</answer>", 1.0, "open-r1 layout"),
    ("<think>reason</think><answer>4</answer>", 0.0, "no newlines: open-r1 pays nothing"),
    ("<think>\nreason\n</think>\nno answer tags", 0.5, "only the think tags"),
    ("<think>\n\n</think>\n<answer>\n4\n</answer>", 0.5, "an empty think block earns nothing"),
    ("<think>\na\n</think>\n<think>\nb\n</think>\n<answer>\n4\n</answer>", 0.5, "repeated think tags"),
]


@pytest.mark.parametrize(("completion", "expected", "why"), TAG_COUNT_CASES, ids=[c[2] for c in TAG_COUNT_CASES])
def test_tag_count(completion, expected, why):
    assert values("tag_count", [completion]) == [expected]


def test_tag_count_options():
    assert values("tag_count", ["<think>r</think><answer>4</answer>"], newlines=False) == [1.0]
    assert values("tag_count", ["<think>\n\n</think>\n<answer>\n4\n</answer>"], require_content=False) == [1.0]
    assert values("tag_count", ["<reasoning>\nr\n</reasoning>"], tags=["reasoning"]) == [1.0]


@pytest.mark.parametrize(
    ("name", "params", "match"),
    [
        ("reasoning_steps", {"min_steps": 0}, "min_steps must be an integer >= 1"),
        ("reasoning_steps", {"region": "answer"}, "region: expected one of 'all', 'think'"),
        ("tag_count", {"tags": "think"}, "tags: expected a list of strings"),
        ("tag_count", {"tags": ["<think>"]}, "tag names like"),
        ("think_format", {"allow_empty_think": "yes"}, "allow_empty_think: expected true or false"),
        ("think_format", {"require_answer": 1}, "require_answer: expected true or false"),
    ],
)
def test_reasoning_reward_params_are_checked_at_build_time(name, params, match):
    with pytest.raises(rk.ConfigError, match=match):
        rk.build_reward({"reward": name, "params": params})


def test_reasoning_rewards_compose_in_a_spec_and_report_components():
    reward = rk.build_reward(
        {
            "name": "r1",
            "combine": "sum",
            "terms": [
                "think_format",
                {"reward": "reasoning_steps", "weight": 0.5},
                {"reward": "tag_count", "weight": 0.25},
            ],
        }
    )
    rows = reward.explain(completions=["<think>\n1. a\n2. b\n3. c\n</think>\nanswer: 4"])
    assert rows[0]["components"] == {"think_format": 1.0, "reasoning_steps": 1.0, "tag_count": 0.5}
    assert rows[0]["reward"] == pytest.approx(1.0 + 0.5 + 0.125)
