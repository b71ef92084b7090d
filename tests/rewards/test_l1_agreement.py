"""length_budget against L1's reference formulas (Aggarwal & Welleck 2025), restated here in our own words.

The paper (eq. 1 and 2): L1-Exact ``I(correct) - alpha * |n_gold - n_y|``; L1-Max
``I(correct) * clip(alpha * (n_gold - n_y) + delta, 0, 1)`` with ``delta = 0.5``. The released code
(cmu-l3/l1, ``math_reward.py``, linear variants) writes the same two rewards differently: exact as
``(1 - a * |used - target|) - 1`` added to the 0/1 correctness; max (target stored as ``-N``) as
``(clip(-a * (used - N), -1, 1) + 1) / 2`` multiplied with the correctness, which is the paper's form with
``alpha = a / 2``. The cases below are the paper's budgets (512 to 3600 tokens, n_gold drawn from 100 to 4000),
the paper's alpha 0.0003, and lengths under, at and far past each budget.
"""

from __future__ import annotations

import itertools

import pytest

import rewardkit as rk
from rewardkit.rewards.length_budget import l1_exact, l1_max

PAPER_ALPHA, DELTA = 0.0003, 0.5
TARGETS = [100, 512, 1024, 2048, 3600, 4000]
USED = [0, 1, 99, 100, 511, 512, 513, 1000, 1700, 2048, 3600, 4000, 5000, 8000]
CASES = list(itertools.product(TARGETS, USED, [0, 1]))


def paper_exact(correct, target, used, alpha):
    return (1.0 if correct else 0.0) - alpha * abs(target - used)


def paper_max(correct, target, used, alpha, delta):
    return (1.0 if correct else 0.0) * max(0.0, min(1.0, alpha * (target - used) + delta))


def code_exact(correct, target, used, a):
    penalty = (1 - abs(used - target) * a) - 1
    return penalty + (1 if correct else 0)


def code_max(correct, stored_target, used, a):
    # L1's data stores a maximum budget N as -N; the code's linear "both" variant, multiplied with correctness
    over = used - abs(stored_target)
    scaled = max(-1.0, min(1.0, -a * over))
    return max(0.0, (scaled + 1) / 2) * (1 if correct else 0)


def test_exact_matches_the_paper_and_the_released_code_on_every_case():
    worst = max(
        max(
            abs(l1_exact(c, t, u, PAPER_ALPHA) - paper_exact(c, t, u, PAPER_ALPHA)),
            abs(l1_exact(c, t, u, PAPER_ALPHA) - code_exact(c, t, u, PAPER_ALPHA)),
        )
        for t, u, c in CASES
    )
    assert worst < 1e-12


def test_max_matches_the_paper_and_the_released_code_with_half_its_alpha():
    worst = 0.0
    for t, u, c in CASES:
        ours = l1_max(c, t, u, PAPER_ALPHA, DELTA)
        worst = max(worst, abs(ours - paper_max(c, t, u, PAPER_ALPHA, DELTA)))
        worst = max(worst, abs(ours - code_max(c, -t, u, 2 * PAPER_ALPHA)))
    assert worst < 1e-12


def test_the_cases_cover_every_regime_of_the_max_reward():
    regimes = {
        ("full" if v == 1 else "zero" if v == 0 else "partial")
        for t, u, c in CASES
        if c
        for v in [paper_max(c, t, u, PAPER_ALPHA, DELTA)]
    }
    assert regimes == {"full", "partial", "zero"}


@pytest.mark.parametrize("mode", ["exact", "max"])
def test_the_reward_end_to_end_agrees_with_the_paper_through_tokens_and_the_math_verifier(mode):
    """The same table through ``length_budget`` itself: lengths as TRL's completion_ids, correctness judged."""
    reward = rk.get_reward("length_budget", mode=mode, alpha=PAPER_ALPHA)
    cases = [(t, u, c) for t, u, c in CASES if u <= 4000]
    got = reward(
        completions=[r"\boxed{4}" if c else r"\boxed{5}" for _, _, c in cases],
        answer=["4"] * len(cases),
        num_tokens=[t for t, _, _ in cases],
        completion_ids=[[0] * u for _, u, _ in cases],
    )
    want = [
        paper_exact(c, t, u, PAPER_ALPHA) if mode == "exact" else paper_max(c, t, u, PAPER_ALPHA, DELTA)
        for t, u, c in cases
    ]
    assert got == pytest.approx(want, abs=1e-12)
