"""What a math worker process runs. Importing this module loads and warms sympy and math-verify, so a
worker reports ready only once a first comparison would be fast: start-up never eats a sample's deadline."""

from __future__ import annotations

import math_verify  # noqa: F401
import sympy  # noqa: F401

from rewardkit.verifiers.math_answer.compare import Judgement, Task, judge_task


def judge_in_worker(task: Task) -> Judgement:
    return judge_task(task)


judge_task(Task((r"\frac{x^2}{2}", r"\{1, 2\}"), r"0.5x^2", (((r"0.5x^2",), True, "restatement"),)))
