"""Our shapers against TRL's own reward functions (``trl.rewards``), row by row.

The tables restate, in our own inputs, the cases huggingface/trl's ``tests/test_rewards.py`` pins down
(snapshot f2cd577, the same code as the TRL 1.16 we test with): each row keeps the feature a TRL test
checks and TRL's expected value. Every row runs through TRL's function and ours with its default
parameters, and both must give that value. Rows "beyond TRL's tests" have no value of their own: ours
must give what TRL gives. Our stricter behaviours are named parameters, tested in test_shapers.py and
test_reasoning_format.py.
"""

from __future__ import annotations

import pickle

import pytest

import rewardkit as rk

trl_rewards = pytest.importorskip("trl.rewards")


def chat(texts: list[str]) -> list[list[dict[str, str]]]:
    return [[{"role": "assistant", "content": t}] for t in texts]


def ours(name: str, texts: list[str], params: dict | None = None, **columns) -> list:
    reward = rk.get_reward(name, **(params or {}))
    with reward:
        return reward(prompts=["q"] * len(texts), completions=chat(texts), **columns)


# --- think_format vs think_format_reward ------------------------------------------------------------------

# (completion, TRL's value, the feature the TRL test checks). TRL's mixed-format test repeats four of these.
THINK_TRL_CASES = [
    ("<think>I add two and two.</think>It is four.", 1.0, "one-line thinking, then the answer"),
    ("<think>\nI add two and two.\n</think>\nIt is four.", 1.0, "newlines around the thinking"),
    ("<think>\nI add two\nand two.\n</think>\nIt is four.", 1.0, "thinking over several lines"),
    ("<think>\nI read <b> as a tag.</think>\nIt is four.", 1.0, "another tag inside the thinking"),
    ("<think></think>\nIt is four.", 1.0, "empty thinking"),
    ("<think>\nI add two and two.\nIt is four.", 0.0, "never closed, multi-line"),
    ("<think>I add two and two.\nIt is four.", 0.0, "never closed"),
    ("I add two and two. It is four.", 0.0, "no tags"),
    ("I add two and two.\nIt is four.", 0.0, "no tags, two lines"),
    ("I add two and two.</think>\nIt is four.", 0.0, "closing tag only, newline"),
    ("I add two and two.</think>It is four.", 0.0, "closing tag only"),
    ("So<think>I add two and two.</think>\nIt is four.", 0.0, "text before the opening tag"),
    ("<think>I add<think>two and two.</think></think>It is four.", 0.0, "a think block nested in another"),
    ("<think>I add</think>\nso\n<think>two and two.</think>\nIt is four.", 0.0, "a second think block"),
]

# Beyond TRL's tests: the cases issue 26 names and the ones our own tables check.
THINK_MORE = [
    "<think>a</think>",
    "<think>a</think>   \n ",
    "<think></think>4",
    "<think>  \n</think>4",
    "  <think>\nreason\n</think>\n\n**4**",
    "\n<think>r</think>4",
    "<think>a</think>4</think>",
    "<think>a</think></think>",
    "<think>never closed, out of tokens",
    "</think>4",
    "<think>",
    "4",
    "",
]


@pytest.mark.parametrize(("text", "expected", "why"), THINK_TRL_CASES, ids=[c[2] for c in THINK_TRL_CASES])
def test_think_format_agrees_with_trl_on_its_cases(text, expected, why):
    assert trl_rewards.think_format_reward(chat([text])) == [expected]
    assert ours("think_format", [text]) == [expected]


@pytest.mark.parametrize("text", THINK_MORE)
def test_think_format_agrees_with_trl_beyond_its_cases(text):
    assert ours("think_format", [text]) == trl_rewards.think_format_reward(chat([text]))


def test_think_format_agrees_with_trl_on_a_batch():
    texts = [c[0] for c in THINK_TRL_CASES] + THINK_MORE
    assert ours("think_format", texts) == trl_rewards.think_format_reward(chat(texts))


# --- repetition_penalty vs get_repetition_penalty_reward ---------------------------------------------------

# TRL counts n-grams of token ids. In training TRL passes the ids with the decoded text; the toy vocabulary
# below decodes the way BPE pieces do, without spaces, so words and tokens give different counts.
PIECES = {1: "ab", 2: "ra", 3: "ca", 4: "da", 5: "ha", 9: "ok"}


def decoded(ids: list[int]) -> str:
    return "".join(PIECES[i] for i in ids)


# (token ids, ngram_size, max_penalty, TRL's value, the feature)
REPETITION_TRL_CASES = [
    ([1, 2, 3, 4], 2, -1.0, 0.0, "every n-gram distinct"),
    ([5, 5, 5, 5, 5], 2, -1.0, -0.75, "one token throughout: 4 bigrams, 1 distinct"),
    ([1, 2, 1, 2, 1, 2], 2, -1.0, -0.6, "an alternating pair: 5 bigrams, 2 distinct"),
    ([1, 2], 3, -1.0, 0.0, "fewer tokens than ngram_size"),
    ([1, 2, 3], 3, -1.0, 0.0, "exactly ngram_size tokens"),
    ([], 3, -1.0, 0.0, "no tokens"),
    ([5, 5, 5, 5, 5], 2, -0.5, -0.375, "max_penalty scales the value"),
    ([1, 2, 3, 1, 2, 3], 2, -1.0, -0.4, "a repeated triple seen as bigrams: 5, 3 distinct"),
    ([1, 2, 3, 1, 2, 3], 3, -1.0, -0.25, "a repeated triple seen as trigrams: 4, 3 distinct"),
    ([9], 2, -1.0, 0.0, "one token, bigrams"),
]


def trl_repetition(ids: list[list[int]], n: int, max_penalty: float) -> list[float]:
    return trl_rewards.get_repetition_penalty_reward(ngram_size=n, max_penalty=max_penalty)(ids)


def ours_repetition(ids: list[list[int]], n: int, max_penalty: float, **columns) -> list:
    params = {"ngram_size": n, "max_penalty": max_penalty}
    return ours("repetition_penalty", [decoded(i) for i in ids], params, completion_ids=ids, **columns)


@pytest.mark.parametrize(
    ("ids", "n", "max_penalty", "expected", "why"), REPETITION_TRL_CASES, ids=[c[4] for c in REPETITION_TRL_CASES]
)
def test_repetition_penalty_agrees_with_trl_on_its_cases(ids, n, max_penalty, expected, why):
    assert trl_repetition([ids], n, max_penalty) == [pytest.approx(expected)]
    assert ours_repetition([ids], n, max_penalty) == [pytest.approx(expected)]


def test_repetition_penalty_agrees_with_trl_on_a_batch_and_with_other_columns():
    ids = [c[0] for c in REPETITION_TRL_CASES if c[1] == 2 and c[2] == -1.0]
    assert ours_repetition(ids, 2, -1.0) == trl_repetition(ids, 2, -1.0)
    # TRL's trainer passes the text and the dataset columns too; the ids still decide
    assert ours_repetition(ids, 2, -1.0, answer=["x"] * len(ids)) == trl_repetition(ids, 2, -1.0)


def test_repetition_penalty_rejects_a_positive_max_penalty_like_trl():
    with pytest.raises(ValueError):
        trl_rewards.get_repetition_penalty_reward(ngram_size=2, max_penalty=0.5)
    with pytest.raises(ValueError):  # rk.ConfigError is a ValueError
        rk.get_reward("repetition_penalty", ngram_size=2, max_penalty=0.5)


def test_repetition_penalty_survives_pickling_and_still_counts_tokens():
    reward = pickle.loads(pickle.dumps(rk.get_reward("repetition_penalty", ngram_size=2)))
    ids = [[5, 5, 5, 5, 5]]
    assert reward(completions=[decoded(ids[0])], completion_ids=ids) == trl_repetition(ids, 2, -1.0)


# --- soft_overlong vs get_soft_overlong_punishment ----------------------------------------------------------

# (length in tokens, max length, cache, TRL's value, the feature); texts are two characters a token
SOFT_TRL_CASES = [
    (50, 100, 20, 0.0, "shorter than max - cache"),
    (110, 100, 20, -1.0, "longer than max"),
    (90, 100, 20, -0.5, "inside the cache, halfway"),
]
# Beyond TRL's tests: the edges, and cache 0, which TRL's docstring allows (no soft zone)
SOFT_MORE = [(80, 100, 20), (81, 100, 20), (100, 100, 20), (101, 100, 20), (100, 100, 0), (101, 100, 0)]


def soft_pair(length: int, max_len: int, cache: int) -> tuple[list, list]:
    ids = [[1] * length]
    theirs = trl_rewards.get_soft_overlong_punishment(max_completion_len=max_len, soft_punish_cache=cache)(ids)
    mine = ours("soft_overlong", [decoded(ids[0])], {"max_length": max_len, "cache": cache}, completion_ids=ids)
    return theirs, mine


@pytest.mark.parametrize(
    ("length", "max_len", "cache", "expected", "why"), SOFT_TRL_CASES, ids=[c[4] for c in SOFT_TRL_CASES]
)
def test_soft_overlong_agrees_with_trl_on_its_cases(length, max_len, cache, expected, why):
    theirs, mine = soft_pair(length, max_len, cache)
    assert theirs == [pytest.approx(expected)] and mine == [pytest.approx(expected)]


@pytest.mark.parametrize(("length", "max_len", "cache"), SOFT_MORE)
def test_soft_overlong_agrees_with_trl_beyond_its_cases(length, max_len, cache):
    theirs, mine = soft_pair(length, max_len, cache)
    assert mine == [pytest.approx(theirs[0])]
