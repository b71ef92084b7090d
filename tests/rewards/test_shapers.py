"""Each shaper's math against hand-computed tables."""

from __future__ import annotations

import math
import pickle

import pytest

import rewardkit as rk
from rewardkit.rewards.inputs import Batch
from rewardkit.rewards.length_rewards import cosine_scaled, soft_overlong_penalty

THINK_ANSWER = "<think>x</think><answer>y</answer>"


@pytest.mark.parametrize(
    ("text", "strict", "partial"),
    [
        (THINK_ANSWER, 1.0, 1.0),
        ("  <think>work</think>\n\n<answer>42</answer>\n", 1.0, 1.0),
        ("<think></think><answer>y</answer>", 0.0, 0.5),  # empty think
        ("<think> \n </think><answer>y</answer>", 0.0, 0.5),  # blank think
        ("<think>x</think><answer></answer>", 0.0, 0.5),  # empty answer
        ("<think>x</think><answer>y</answer> Thanks!", 0.0, 0.5),  # text after the closing tag
        ("Sure. <think>x</think><answer>y</answer>", 0.0, 1.0),  # text before the first block
        ("<think>x</think> so <answer>y</answer>", 0.0, 1.0),  # text between blocks
        ("<answer>y</answer><think>x</think>", 0.0, 0.5),  # wrong order: only the first counts
        ("<think>x</think>The answer is 5", 0.0, 0.0),  # trailing text, no answer block
        ("<answer>y</answer>", 0.0, 0.5),
        ("<think>x</think><answer>y</answer><answer>z</answer>", 0.0, 0.5),  # answer twice
        ("<think>x<answer>y</answer></think>", 0.0, 0.5),  # nested: answer counted, think not
        ("no tags at all", 0.0, 0.0),
        ("", 0.0, 0.0),
    ],
)
def test_tag_format_table(text, strict, partial):
    assert rk.get_reward("tag_format")(completions=[text]) == [strict]
    assert rk.get_reward("tag_format", strict=False)(completions=[text]) == [partial]


def test_tag_format_custom_tags_and_prefix():
    three = rk.get_reward("tag_format", tags=["plan", "code", "answer"], strict=False)
    assert three(completions=["<plan>p</plan><code>c</code>"]) == [pytest.approx(2 / 3)]
    assert three(completions=["<plan>p</plan><code>c</code><answer>a</answer>"]) == [1.0]
    prefilled = rk.get_reward("tag_format", prefix="<think>")
    assert prefilled(completions=["reasoning</think><answer>4</answer>"]) == [1.0]
    assert rk.get_reward("tag_format")(completions=["reasoning</think><answer>4</answer>"]) == [0.0]


@pytest.mark.parametrize(
    ("length", "expected"),
    [(0, 0.0), (80, 0.0), (81, -0.05), (90, -0.5), (99, -0.95), (100, -1.0), (150, -1.0)],
)
def test_soft_overlong_table(length, expected):
    assert soft_overlong_penalty(length, 100, 20) == pytest.approx(expected)
    reward = rk.get_reward("soft_overlong", max_length=100, cache=20, unit="chars")
    assert reward(completions=["a" * length]) == [pytest.approx(expected)]


@pytest.mark.parametrize(("length", "expected"), [(99, 0.0), (100, 0.0), (101, -1.0)])
def test_soft_overlong_with_no_cache_is_a_hard_limit(length, expected):
    reward = rk.get_reward("soft_overlong", max_length=100, cache=0, unit="chars")
    assert reward(completions=["a" * length]) == [expected]


def test_soft_overlong_counts_tokens_from_completion_ids():
    reward = rk.get_reward("soft_overlong", max_length=10, cache=4)
    # 3 characters but 9 tokens: the token count decides (6 + 4 = 10 → start of the penalty at 6).
    got = reward(completions=["abc", "abc"], completion_ids=[[1] * 9, [1] * 2])
    assert got == [pytest.approx(-0.75), 0.0]
    # Without completion_ids nor tokenizer, unit=auto measures characters.
    assert reward(completions=["a" * 8]) == [pytest.approx(-0.5)]


def test_soft_overlong_tokens_without_source_is_a_clear_error():
    reward = rk.get_reward("soft_overlong", max_length=10, cache=4, unit="tokens")
    with pytest.raises(rk.ConfigError, match="completion_ids.*tokenizer"):
        reward(completions=["abc"])


@pytest.mark.parametrize(
    ("length", "at_zero", "at_max", "expected"),
    [
        (0, 1.0, 0.5, 1.0),
        (25, 1.0, 0.5, 0.5 + 0.25 * (1 + math.cos(math.pi / 4))),
        (50, 1.0, 0.5, 0.75),
        (100, 1.0, 0.5, 0.5),
        (200, 1.0, 0.5, 0.5),  # clamped beyond max_length
        (0, -1.0, -0.5, -1.0),
        (50, -1.0, -0.5, -0.75),
        (100, -1.0, -0.5, -0.5),
    ],
)
def test_cosine_scaled_table(length, at_zero, at_max, expected):
    assert cosine_scaled(length, 100, at_zero, at_max) == pytest.approx(expected)


def test_cosine_length_differs_for_correct_and_wrong():
    reward = rk.get_reward("cosine_length", max_length=18, unit="chars")
    with reward:
        got = reward(completions=[r"\boxed{2}", r"\boxed{3}", r"\boxed{2}"], answer=["2", "2", None])
    assert got == [pytest.approx(0.75), pytest.approx(-0.75), None]  # 9 chars of 18: halfway


@pytest.mark.parametrize(
    ("text", "n", "max_penalty", "expected"),
    [
        ("a b a b a b", 2, -1.0, -0.6),  # 5 bigrams, 2 distinct
        ("a b a b a b", 2, -0.5, -0.3),
        ("A b a B", 2, -1.0, -1 / 3),  # case-insensitive: (a,b),(b,a),(a,b)
        ("the cat sat on the mat", 2, -1.0, 0.0),
        ("word", 2, -1.0, 0.0),  # shorter than n
        ("", 3, -1.0, 0.0),
        ("go go go go go", 1, -1.0, -0.8),  # 5 unigrams, 1 distinct
    ],
)
def test_repetition_penalty_table(text, n, max_penalty, expected):
    reward = rk.get_reward("repetition_penalty", ngram_size=n, max_penalty=max_penalty)
    assert reward(completions=[text]) == [pytest.approx(expected)]


def test_repetition_penalty_counts_token_ids_when_trl_passes_them():
    # "hahaha" is one word but three repeated tokens: 2 bigrams of ids, 1 distinct
    ids = [[7, 7, 7], [1, 2, 3]]
    texts = ["hahaha", "go go go"]
    reward = rk.get_reward("repetition_penalty", ngram_size=2)
    assert reward(completions=texts, completion_ids=ids) == [pytest.approx(-0.5), 0.0]
    words = rk.get_reward("repetition_penalty", ngram_size=2, unit="words")
    assert words(completions=texts, completion_ids=ids) == [0.0, pytest.approx(-0.5)]
    # without ids nor a tokenizer, auto counts words: the offline value
    assert reward(completions=texts) == [0.0, pytest.approx(-0.5)]


def test_repetition_penalty_tokens_without_ids_is_a_clear_error():
    reward = rk.get_reward("repetition_penalty", unit="tokens")
    with pytest.raises(rk.ConfigError, match="completion_ids.*tokenizer.*unit: words"):
        reward(completions=["a b c"])


def test_repetition_penalty_tokenizes_offline_with_a_tokenizer(tmp_path):
    pytest.importorskip("transformers")
    from rewardkit.train.tiny_model import build_char_tokenizer

    build_char_tokenizer().save_pretrained(tmp_path)  # one token per character
    reward = rk.get_reward("repetition_penalty", ngram_size=2, tokenizer=str(tmp_path))
    # h a h a h a: 5 bigrams, 2 distinct; the pickled reward loads the tokenizer again
    assert reward(completions=["hahaha"]) == [pytest.approx(-0.6)]
    assert pickle.loads(pickle.dumps(reward))(completions=["hahaha"]) == [pytest.approx(-0.6)]


@pytest.mark.parametrize(
    ("name", "params", "match"),
    [
        ("tag_format", {"tags": "think"}, "tags: expected a list of strings"),
        ("tag_format", {"tags": ["think", "think"]}, "distinct"),
        ("soft_overlong", {"max_length": 10, "cache": 20}, "cache"),
        ("soft_overlong", {"unit": "words"}, "unit must be one of auto, tokens, chars"),
        ("soft_overlong", {"max_length": "long"}, "max_length: expected an integer"),
        ("repetition_penalty", {"max_penalty": 1.0}, "max_penalty must be a number <= 0"),
        ("repetition_penalty", {"ngram_size": 0}, "ngram_size"),
        ("repetition_penalty", {"unit": "chars"}, "unit must be one of auto, tokens, words"),
        ("cosine_length", {"verifier": "nope"}, "unknown verifier 'nope'"),
    ],
)
def test_bad_shaper_params(name, params, match):
    with pytest.raises(rk.ConfigError, match=match):
        rk.get_reward(name, **params)


def test_batch_reads_reasoning_content_and_several_messages():
    batch = Batch.from_call(
        None,
        [
            [
                {"role": "assistant", "reasoning_content": "r", "content": "<answer>1</answer>"},
                {"role": "tool", "content": "ignored"},
                {"role": "assistant", "content": [{"type": "text", "text": "more"}]},
            ]
        ],
        {},
    )
    assert batch.texts == ["<think>r</think><answer>1</answer>\nmore"]
