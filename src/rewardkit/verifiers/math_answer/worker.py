"""What a math worker process runs. Importing this module loads and warms sympy and math-verify, so a
worker reports ready only once a first comparison would be fast: start-up never eats a sample's deadline."""

from __future__ import annotations

import math_verify  # noqa: F401
import sympy  # noqa: F401

from rewardkit.verifiers.math_answer.compare import Judgement, judge


def judge_in_worker(payload: tuple[tuple[str, ...], str]) -> Judgement:
    values, reference = payload
    return judge(values, reference)


judge((r"\frac{x^2}{2}", r"\{1, 2\}"), r"0.5x^2")
