"""Each combinator, weights, None rows, nesting, component labels and their log_metric reports."""

from __future__ import annotations

import math
import re
import warnings

import pytest

import rewardkit as rk

pytestmark = pytest.mark.usefixtures("test_plugin")


def term(key: str, weight: float = 1.0, name: str | None = None) -> dict:
    node = {"reward": "column_value", "params": {"value_key": key}, "weight": weight}
    if name:
        node["name"] = name
    return node


COLUMNS = {"a": [0.5, 1.0, None, None, -2.0], "b": [0.25, 0.0, 3.0, None, 4.0]}
COMPLETIONS = ["c"] * 5


def run(spec: dict, **extra) -> list:
    return rk.build_reward(spec)(prompts=["p"] * 5, completions=COMPLETIONS, **COLUMNS, **extra)


@pytest.mark.parametrize(
    ("combine", "expected"),
    [
        # weights 2 (a) and 1 (b): a' = [1, 2, -, -, -4]
        ("sum", [1.25, 2.0, 3.0, None, 0.0]),
        ("product", [0.25, 0.0, 3.0, None, -16.0]),
        ("min", [0.25, 0.0, 3.0, None, -4.0]),
        ("max", [1.0, 2.0, 3.0, None, 4.0]),
    ],
)
def test_reducing_combinators(combine, expected):
    got = run({"combine": combine, "terms": [term("a", 2.0, "a"), term("b", 1.0, "b")]})
    assert got == [None if e is None else pytest.approx(e) for e in expected]


@pytest.mark.parametrize(
    ("threshold", "otherwise", "expected"),
    [
        # gate on a = [0.5, 1, None, None, -2], then b = [0.25, 0, 3, None, 4]
        (1.0, 0.0, [0.0, 0.0, 3.0, None, 0.0]),
        (0.5, 0.0, [0.25, 0.0, 3.0, None, 0.0]),
        (1.0, -1.0, [-1.0, 0.0, 3.0, None, -1.0]),
    ],
)
def test_gate(threshold, otherwise, expected):
    spec = {"combine": "gate", "when": term("a"), "then": term("b"), "threshold": threshold, "otherwise": otherwise}
    assert run(spec) == expected


@pytest.mark.parametrize(
    ("low", "high", "expected"),
    [
        (0.0, 1.0, [0.25, 0.0, 1.0, None, 1.0]),
        (None, 0.5, [0.25, 0.0, 0.5, None, 0.5]),
        (1.0, None, [1.0, 1.0, 3.0, None, 4.0]),
    ],
)
def test_clip(low, high, expected):
    spec = {"combine": "clip", "term": term("b")}
    if low is not None:
        spec["low"] = low
    if high is not None:
        spec["high"] = high
    assert run(spec) == expected


def test_scale():
    assert run({"combine": "scale", "term": term("b"), "factor": 2, "offset": -1}) == [-0.5, -1.0, 5.0, None, 7.0]


def test_nesting_and_component_labels():
    spec = {
        "name": "nested",
        "combine": "sum",
        "terms": [
            {
                "combine": "gate",
                "name": "gated",
                "when": term("a", name="fmt"),
                "then": term("b", name="acc"),
                "threshold": 0.5,
            },
            {"combine": "clip", "term": term("a"), "low": -1.0, "high": 1.0, "weight": 0.5},
        ],
    }
    reward = rk.build_reward(spec)
    assert reward.__name__ == "nested"
    metrics: list[tuple[str, float]] = []
    got = reward(prompts=None, completions=COMPLETIONS, **COLUMNS, log_metric=lambda k, v: metrics.append((k, v)))
    # gated: [0.25, 0, 3, None, 0]; clipped a * 0.5: [0.25, 0.5, None, None, -0.5]
    assert got == [0.5, 0.5, 3.0, None, -0.5]
    scored = reward.score(_batch())
    assert set(scored.components) == {"gated/fmt", "gated/acc", "clip_column_value/column_value"}
    logged = dict(metrics)
    assert logged["rewards/nested/gated/acc/mean"] == pytest.approx((0.25 + 0.0 + 3.0 + 4.0) / 4)
    assert logged["rewards/nested/gated/fmt/mean"] == pytest.approx((0.5 + 1.0 - 2.0) / 3)


def _batch():
    from rewardkit.rewards.inputs import Batch

    return Batch.from_call(None, COMPLETIONS, COLUMNS)


def test_duplicate_labels_get_suffixes():
    reward = rk.build_reward({"combine": "sum", "terms": [term("a"), term("b")]})
    assert list(reward.score(_batch()).components) == ["column_value", "column_value_2"]


def test_single_reward_spec_is_not_wrapped_and_logs_nothing():
    reward = rk.build_reward({"reward": "column_value", "name": "just_b", "params": {"value_key": "b"}})
    metrics = []
    assert reward(completions=COMPLETIONS, **COLUMNS, log_metric=lambda k, v: metrics.append(k)) == COLUMNS["b"]
    assert reward.__name__ == "just_b" and metrics == []


def test_where_scores_only_matching_rows():
    reward = rk.build_reward(
        {
            "combine": "sum",
            "terms": [{"reward": "contains", "where": {"task": ["math", "logic"]}}, {"reward": "length_reward"}],
        }
    )
    got = reward(
        completions=["x=4", "B", "y"],
        answer=["4", "B", "y"],
        task=["math", "mcq", "logic"],
    )
    assert got == [1.0 + 3, 0.0 + 1, 1.0 + 1]
    statuses = reward.score(_where_batch()).statuses["contains"]
    assert statuses == ["ok", None, "ok"]


def _where_batch():
    from rewardkit.rewards.inputs import Batch

    return Batch.from_call(None, ["x=4", "B", "y"], {"answer": ["4", "B", "y"], "task": ["math", "mcq", "logic"]})


def test_where_on_a_missing_column_names_it():
    reward = rk.build_reward({"reward": "length_reward", "where": {"task": "math"}})
    with pytest.raises(rk.ConfigError, match="column 'task'.*columns: answer"):
        reward(completions=["x"], answer=["1"])


def _code_term():
    return rk.build_reward({"combine": "sum", "terms": [{"reward": "length_reward", "where": {"task": "code"}}]})


def test_where_stays_quiet_while_a_mixed_dataset_has_not_shown_its_rows_yet(recwarn):
    reward = _code_term()
    for _ in range(3):  # small batches of a mixed dataset that happen to hold no code row
        assert reward(completions=["a", "b"], task=["math", "mcq"]) == [None, None]
    assert reward(completions=["abc"] * 300, task=["code"] * 300)[0] == 3.0
    for _ in range(300):
        reward(completions=["a"], task=["math"])
    assert not [w for w in recwarn.list if "never applies" in str(w.message)]


def test_where_warns_after_many_rows_without_a_match():
    reward = _code_term()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(200):
            reward(completions=["a", "b"], task=["math", "mcq"])
    messages = [str(w.message) for w in caught if "never applies" in str(w.message)]
    assert len(messages) == 1  # warned once
    assert re.search(r"no row of the first 2\d\d matched.*'task' had 'math', 'mcq'", messages[0])


@pytest.mark.parametrize("column", [["Code", "math"], [" code ", "math"], ["CODE"]])
def test_where_warns_at_once_on_a_value_that_differs_only_in_case_or_spaces(column):
    with pytest.warns(UserWarning, match="only in case, spaces or type"):
        _code_term()(completions=["a"] * len(column), task=column)


def test_where_warns_at_once_on_a_value_of_another_type():
    reward = rk.build_reward({"reward": "length_reward", "where": {"split": 1}})
    with pytest.warns(UserWarning, match="only in case, spaces or type.*'1'"):
        assert reward(completions=["a"], split=["1"]) == [None]


def test_nan_from_a_term_becomes_none():
    reward = rk.build_reward({"combine": "product", "terms": [term("a")]})
    assert reward(completions=["c"], a=[math.nan]) == [None]


def test_where_around_a_nested_combinator_keeps_its_labels():
    reward = rk.build_reward(
        {
            "combine": "sum",
            "terms": [
                {
                    "combine": "max",
                    "name": "best",
                    "terms": [term("a", name="a"), term("b", name="b")],
                    "where": {"task": "math"},
                },
                {"reward": "length_reward"},
            ],
        }
    )
    from rewardkit.rewards.inputs import Batch

    batch = Batch.from_call(None, ["c"] * 5, {**COLUMNS, "task": ["math", "mcq", "math", "math", "mcq"]})
    scored = reward.score(batch)
    assert scored.values == [1.5, 1.0, 4.0, 1.0, 1.0]  # max(0.5, 0.25) + 1, -, max(None, 3) + 1
    assert scored.components["best/a"] == [0.5, None, None, None, None]
    assert scored.components["best/b"] == [0.25, None, 3.0, None, None]


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (
            {"threshold": "high"},
            "threshold: expected a number (the gate passes where the `when` term is >= this), got str",
        ),
        ({"otherwise": True}, "otherwise: expected a number"),
        ({"threshold": math.inf}, "(not a finite number)"),
    ],
)
def test_a_combinator_built_in_python_checks_its_settings_with_the_parameter_checker(settings, message):
    from rewardkit.plugins.params import ParamValueError
    from rewardkit.rewards.combinators import Gate, Term

    leaf = rk.get_reward("tag_format")
    with pytest.raises(ParamValueError) as info:
        Gate("gate", {"when": [Term("w", leaf)], "then": [Term("t", leaf)]}, **settings)
    assert message in str(info.value)
    assert Gate("gate", {"when": [Term("w", leaf)], "then": [Term("t", leaf)]}, threshold=1).settings["threshold"] == 1
