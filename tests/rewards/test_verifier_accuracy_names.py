"""A verifier_accuracy term is logged under its verifier's name, so two such terms never share a log key."""

from __future__ import annotations

from typing import Any

import rewardkit as rk

TWO_VERIFIERS = {
    "name": "mixed",
    "combine": "sum",
    "terms": [
        {"reward": "verifier_accuracy", "verifier": "math", "where": {"task": "math"}},
        {"reward": "verifier_accuracy", "verifier": "mcq", "where": {"task": "mcq"}},
    ],
}


def _call_like_trl(reward: rk.Reward, **columns: Any) -> tuple[dict[str, list[float]], dict[str, list[Any]]]:
    metrics: dict[str, list[float]] = {}
    extra: dict[str, list[Any]] = {}
    reward(
        prompts=["q"] * len(columns["completions"]),
        log_metric=lambda name, value: metrics.setdefault(name, []).append(value),
        log_extra=lambda name, values: extra.setdefault(name, []).extend(values),
        **columns,
    )
    return metrics, extra


def test_two_verifier_terms_log_components_statuses_and_metrics_under_their_verifiers():
    with rk.build_reward(TWO_VERIFIERS) as reward:
        metrics, extra = _call_like_trl(
            reward,
            completions=[r"so \boxed{4}", r"so \boxed{5}", "The answer is (B)"],
            answer=["4", "4", "B"],
            task=["math", "math", "mcq"],
        )
    assert metrics["rewards/mixed/math/mean"] == [0.5]
    assert metrics["rewards/mixed/mcq/mean"] == [1.0]
    assert "rewards/mixed/math/status/ok" in metrics and "rewards/mixed/mcq/status/ok" in metrics
    assert not any("verifier_accuracy" in key for key in [*metrics, *extra])
    assert extra["mixed/math"] == [1.0, 0.0, None] and extra["mixed/mcq/status"] == [None, None, "ok"]


def test_a_single_verifier_accuracy_reward_is_named_after_its_verifier():
    reward = rk.get_reward("verifier_accuracy", verifier="math")
    assert reward.__name__ == "math"
    metrics, extra = _call_like_trl(reward, completions=[r"\boxed{2}"], answer=["2"])
    assert metrics["rewards/math/status/ok"] == [1.0] and extra == {"math/status": ["ok"]}
    rows = rk.score_rows({"reward": "verifier_accuracy", "verifier": "math"}, [{"completion": "1", "answer": "1"}])
    assert rows[0]["components"] == {"math": 1.0}


def test_two_terms_on_the_same_verifier_get_distinct_names_in_spec_order():
    spec = {
        "combine": "sum",
        "terms": [
            {"reward": "verifier_accuracy", "verifier": "math"},
            {"reward": "verifier_accuracy", "verifier": "math", "params": {"value": "correct"}},
            {"reward": "verifier_accuracy", "verifier": "math", "name": "strict_math"},
        ],
    }
    for _ in range(2):  # the same names every time the spec is built
        with rk.build_reward(spec) as reward:
            rows = reward.explain(completions=[r"\boxed{3}"], answer=["3"])
        assert list(rows[0]["components"]) == ["math", "math_2", "strict_math"]
        assert reward.__name__ == "sum_math_math_2_strict_math"
