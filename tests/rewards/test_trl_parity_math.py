"""Our verifier-backed rewards against TRL's math rewards, row by row (see test_trl_parity.py).

``cosine_length`` against ``get_cosine_scaled_reward`` and ``math_accuracy`` against ``accuracy_reward``,
on our restatement of the cases huggingface/trl's ``tests/test_rewards.py`` pins down (snapshot f2cd577);
both read the reference from the ``solution`` column, as TRL's functions do. ``reasoning_accuracy_reward``
has no counterpart of its own: ``math_accuracy`` already reads only the answer after the think block.
One difference is kept on purpose and pinned here: a reference in words is a text answer for our math
verifier (``east`` against ``east`` is correct), where TRL skips the row (math-verify cannot parse it).
"""

from __future__ import annotations

import threading

import pytest

import rewardkit as rk

trl_rewards = pytest.importorskip("trl.rewards")
pytest.importorskip("math_verify")

ONE_WORKER = {"workers": 1}
RIGHT, WRONG, GOLD = r"\boxed{\frac{2}{7}}", r"\boxed{\frac{3}{7}}", r"\frac{2}{7}"


def chat(texts: list[str]) -> list[list[dict[str, str]]]:
    return [[{"role": "assistant", "content": t}] for t in texts]


def ours(name: str, texts: list[str], params: dict, **columns) -> list:
    reward = rk.get_reward(name, **params)
    with reward:
        return reward(prompts=["q"] * len(texts), completions=chat(texts), **columns)


# (completion, solution, length in tokens, TRL's value, the feature); max length 100, TRL's default bounds
COSINE_TRL_CASES = [
    (RIGHT, GOLD, 25, 0.92678, "correct, a quarter of the way: near the short bound"),
    (RIGHT, GOLD, 75, 0.57322, "correct, three quarters: near the long bound"),
    (WRONG, GOLD, 25, -0.92678, "wrong and short: penalised most"),
    (WRONG, GOLD, 75, -0.57322, "wrong and long: penalised less"),
    (RIGHT, GOLD, 50, 0.75, "correct at half the length"),
    (WRONG, GOLD, 50, -0.75, "wrong at half the length"),
    (RIGHT, GOLD, 0, 1.0, "correct, no tokens"),
    (RIGHT, GOLD, 100, 0.5, "correct at the max length"),
    (WRONG, GOLD, 0, -1.0, "wrong, no tokens"),
    (WRONG, GOLD, 100, -0.5, "wrong at the max length"),
    (RIGHT, GOLD, 200, 0.5, "correct past the max length: clamped"),
    (WRONG, GOLD, 200, -0.5, "wrong past the max length: clamped"),
]


def trl_cosine(text: str, solution: str, length: int, **bounds: float) -> list:
    reward = trl_rewards.get_cosine_scaled_reward(max_len=100, **bounds)
    return reward(chat([text]), [solution], [[1] * length])


@pytest.mark.parametrize(
    ("text", "solution", "length", "expected", "why"), COSINE_TRL_CASES, ids=[c[4] for c in COSINE_TRL_CASES]
)
def test_cosine_length_agrees_with_trl_on_its_cases(text, solution, length, expected, why):
    want = [None] if expected is None else [pytest.approx(expected, abs=1e-4)]
    assert trl_cosine(text, solution, length) == want
    params = {"max_length": 100, "verifier_params": ONE_WORKER}
    assert ours("cosine_length", [text], params, solution=[solution], completion_ids=[[1] * length]) == want


def test_cosine_length_bounds_are_trls_under_our_names():
    # TRL's min/max_value_correct are the values at the long / short end: our correct_long / correct_short
    theirs = trl_cosine(RIGHT, GOLD, 50, min_value_correct=0.0, max_value_correct=2.0)
    params = {"max_length": 100, "correct_long": 0.0, "correct_short": 2.0, "verifier_params": ONE_WORKER}
    mine = ours("cosine_length", [RIGHT], params, solution=[GOLD], completion_ids=[[1] * 50])
    assert theirs == [pytest.approx(1.0)] and mine == [pytest.approx(theirs[0])]


# (completion, solution, TRL's value, the feature)
ACCURACY_TRL_CASES = [
    (r"\boxed{\frac{21}{500}}", r"\frac{21}{500}", 1.0, "the same fraction in LaTeX"),
    (r"\boxed{\frac{21}{500}}", "21/500", 1.0, "a plain-text reference"),
    (r"\boxed{\frac{22}{500}}", r"\frac{21}{500}", 0.0, "a different fraction"),
    (r"\boxed{5}", "8", 0.0, "a wrong integer, reference without LaTeX"),
]


@pytest.mark.parametrize(
    ("text", "solution", "expected", "why"), ACCURACY_TRL_CASES, ids=[c[3] for c in ACCURACY_TRL_CASES]
)
def test_math_accuracy_agrees_with_trl_accuracy_reward_on_its_cases(text, solution, expected, why):
    assert trl_rewards.accuracy_reward(chat([text]), [solution]) == [expected]
    assert ours("math_accuracy", [text], ONE_WORKER, solution=[solution]) == [expected]


def test_math_accuracy_agrees_with_trl_from_a_worker_thread():
    got: dict[str, list] = {}

    def run() -> None:
        got["trl"] = trl_rewards.accuracy_reward(chat([RIGHT]), [GOLD])
        got["ours"] = ours("math_accuracy", [RIGHT], ONE_WORKER, solution=[GOLD])

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert got == {"trl": [1.0], "ours": [1.0]}


# (completion, solution, TRL's reasoning_accuracy_reward value, the feature)
REASONING_TRL_CASES = [
    (r"<think> I work it out </think> \boxed{\frac{21}{500}}", r"\frac{21}{500}", 1.0, "answer after the block"),
    (r"I work it out </think> \boxed{\frac{21}{500}}", r"\frac{21}{500}", 1.0, "the block opened by the prompt"),
    (r"<think> I work it out </think> \boxed{\frac{22}{500}}", r"\frac{21}{500}", 0.0, "a wrong answer"),
    (r"<think> It is \boxed{6} </think> I am done.", "6", 0.0, "the answer only inside the block"),
    (r"<think> It is \boxed{6} </think> So \boxed{7}.", "6", 0.0, "right inside, wrong after"),
    (r"<think> so it is \boxed{6}", "6", 0.0, "a think block never closed"),
]


@pytest.mark.parametrize(
    ("text", "solution", "expected", "why"), REASONING_TRL_CASES, ids=[c[3] for c in REASONING_TRL_CASES]
)
def test_math_accuracy_reads_the_answer_after_the_think_block_as_trl_reasoning_accuracy(text, solution, expected, why):
    assert trl_rewards.reasoning_accuracy_reward(chat([text]), [solution]) == [expected]
    assert ours("math_accuracy", [text], ONE_WORKER, solution=[solution]) == [expected]


def test_a_reference_in_words_is_skipped_by_trl_and_judged_as_text_by_us():
    """The documented difference: TRL's accuracy rewards return None when math-verify cannot parse the gold
    answer; our math verifier compares a text answer as text, so the row is judged."""
    rows = [
        ("The answer is east.", "east", 1.0),
        ("The answer is seven.", "eight", 0.0),
        (r"\boxed{42}", "forty two", 0.0),
    ]
    texts, solutions, want = (list(col) for col in zip(*rows, strict=True))
    assert trl_rewards.accuracy_reward(chat(texts), solutions) == [None, None, None]
    assert ours("math_accuracy", texts, ONE_WORKER, solution=solutions) == want
    ids = [[1] * 50] * len(texts)
    assert trl_rewards.get_cosine_scaled_reward(max_len=100)(chat(texts), solutions, ids) == [None, None, None]
    params = {"max_length": 100, "verifier_params": ONE_WORKER}
    assert ours("cosine_length", texts, params, solution=solutions, completion_ids=ids) == [0.75, -0.75, -0.75]


def test_no_think_block_pays_nothing_in_reasoning_accuracy_and_a_think_format_gate_does_the_same():
    """math_accuracy is not a format reward: a correct answer with no think block is correct. TRL's
    reasoning_accuracy_reward pays it 0; gating math_accuracy on think_format gives TRL's value."""
    text, gold = r"The answer is \frac{21}{500} with no reasoning block", r"\frac{21}{500}"
    assert trl_rewards.reasoning_accuracy_reward(chat([text]), [gold]) == [0.0]
    assert ours("math_accuracy", [text], ONE_WORKER, solution=[gold]) == [1.0]
    gated = rk.build_reward(
        {"combine": "gate", "when": "think_format", "then": {"reward": "math_accuracy", "params": ONE_WORKER}}
    )
    with gated:
        assert gated(prompts=["q"], completions=chat([text]), solution=[gold]) == [0.0]
