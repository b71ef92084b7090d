"""The composition spec: dict, YAML and JSON sources, the issue's example, and errors that name the field."""

from __future__ import annotations

import json
import math

import pytest

import rewardkit as rk

ISSUE_SPEC = """\
combine: sum
terms:
  - reward: math_accuracy
    weight: 1.0
  - reward: tag_format
    weight: 0.5
    params: {tags: [think, answer]}
"""

GOOD = r"<think>2 + 2 = 4</think><answer>\boxed{4}</answer>"
UNFORMATTED_RIGHT = r"2 + 2 = 4, so \boxed{4}"
FORMATTED_WRONG = r"<think>guess</think><answer>\boxed{5}</answer>"


@pytest.fixture(params=["yaml", "json", "dict"])
def issue_reward(request, tmp_path):
    import yaml

    data = yaml.safe_load(ISSUE_SPEC)
    if request.param == "yaml":
        path = tmp_path / "spec.yaml"
        path.write_text(ISSUE_SPEC)
        source = str(path)
    elif request.param == "json":
        source = tmp_path / "spec.json"
        source.write_text(json.dumps(data))
    else:
        source = data
    reward = rk.build_reward(source)
    yield reward
    reward.close()


def test_issue_example_scores(issue_reward):
    got = issue_reward(prompts=["q"] * 3, completions=[GOOD, UNFORMATTED_RIGHT, FORMATTED_WRONG], answer=["4"] * 3)
    assert got == [1.5, 1.0, 0.5]
    assert issue_reward.__name__ == "sum_math_accuracy_tag_format"


def error_of(spec) -> str:
    with pytest.raises(rk.ConfigError) as info:
        rk.build_reward(spec)
    return str(info.value)


def test_unknown_reward_names_field_and_lists_registered():
    msg = error_of({"combine": "sum", "terms": [{"reward": "math_accuracy"}, {"reward": "math_acuracy"}]})
    assert msg.startswith("spec.terms[1].reward: unknown reward 'math_acuracy'")
    assert "registered rewards:" in msg and "tag_format" in msg and "Did you mean 'math_accuracy'" in msg


def test_bad_params_name_field_and_accepted_params():
    msg = error_of({"combine": "sum", "terms": [{"reward": "tag_format", "params": {"tagz": ["a"]}}]})
    assert msg.startswith("spec.terms[0].params: bad parameters for reward 'tag_format'")
    assert "it accepts: tags, strict, prefix" in msg


def test_bad_param_value_is_reported_with_field():
    msg = error_of({"combine": "sum", "terms": [{"reward": "soft_overlong", "params": {"cache": "lots"}}]})
    assert msg.startswith(
        "spec.terms[0].params.cache: expected an integer (a parameter of reward 'soft_overlong'), got str 'lots'"
    )


def test_bad_verifier_param_fails_at_build_time():
    msg = error_of({"reward": "math_accuracy", "params": {"timout": 3}})
    assert msg.startswith("spec.params: reward 'math_accuracy': bad parameters for verifier 'math'")
    assert "timeout" in msg


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        (
            {"combine": "sum", "terms": [{"reward": "tag_format", "weight": "high"}]},
            "spec.terms[0].weight: expected a number, got str 'high'",
        ),
        ({"combine": "sum", "terms": "tag_format"}, "spec.terms: expected a non-empty list of terms, got 'tag_format'"),
        ({"combine": "sum", "terms": []}, "spec.terms: expected a non-empty list of terms"),
        ({"combine": "sum"}, "spec: combine: sum needs field 'terms' (a list of terms)"),
        (
            {"combine": "average", "terms": ["tag_format"]},
            "spec.combine: unknown combinator 'average'; registered combinators:",
        ),
        ({"combine": "sum", "terms": [{"weight": 1}]}, "spec.terms[0]: needs exactly one of 'reward'"),
        ({"combine": "sum", "terms": [{"reward": "tag_format", "combine": "sum"}]}, "needs exactly one of 'reward'"),
        (
            {"combine": "sum", "terms": [{"reward": "tag_format", "wieght": 2}]},
            "spec.terms[0]: unknown field(s) 'wieght'; allowed: reward, params, verifier, weight, name, where",
        ),
        (
            {"combine": "sum", "terms": [{"reward": "tag_format", "params": [1]}]},
            "spec.terms[0].params: expected a mapping",
        ),
        (
            {"combine": "gate", "when": "tag_format", "then": "tag_format", "threshold": "yes"},
            "spec.threshold: expected a number (the gate passes where the `when` term is >= this), got str 'yes'",
        ),
        ({"combine": "gate", "when": "tag_format"}, "spec: combine: gate needs field 'then' (one term)"),
        (
            {"combine": "clip", "term": "tag_format"},
            "spec: combinator 'clip_tag_format' (clip) needs field 'low' or 'high'",
        ),
        ({"combine": "clip", "term": "tag_format", "low": 1, "high": 0}, "low (1) must not exceed high (0)"),
        (
            {"combine": "scale", "term": "tag_format", "factr": 2},
            "spec: unknown field(s) 'factr'; allowed: combine, name, weight, where, term, factor, offset, "
            "on_infrastructure_failure",
        ),
        (
            {"combine": "sum", "terms": [{"reward": "tag_format", "where": "math"}]},
            "spec.terms[0].where: expected a mapping",
        ),
        ({"combine": "sum", "terms": [42]}, "spec.terms[0]: expected a mapping with 'reward' or 'combine'"),
        ({"reward": "tag_format", "name": ""}, "spec.name: expected a non-empty string"),
    ],
)
def test_spec_errors(spec, expected):
    assert expected in error_of(spec)


def test_spec_file_errors(tmp_path):
    assert "does not exist" in error_of(str(tmp_path / "missing.yaml"))
    bad = tmp_path / "bad.yaml"
    bad.write_text("combine: [sum\n")
    assert "not valid YAML/JSON" in error_of(str(bad))
    listing = tmp_path / "list.yaml"
    listing.write_text("- reward: tag_format\n")
    assert "must hold a mapping, got list" in error_of(str(listing))
    assert "must be a dict or a path" in error_of(42)


# Each bundled spec: the leaf components it reports, and what a right, well-formatted bundled row scores.
EXAMPLE_SPECS = {
    "math_spec.yaml": ("math.jsonl", "correct_tagged", 1.5, {"math_accuracy", "tag_format", "repetition_penalty"}),
    "mcq_spec.yaml": (
        "mcq.jsonl",
        "correct_tagged",
        1.2,
        {"gated_accuracy/tag_format", "gated_accuracy/mcq_accuracy", "tag_format"},
    ),
    "mixed_spec.yaml": (
        "mixed.jsonl",
        "correct_tagged",
        1.25,
        {"math_accuracy", "mcq_accuracy", "tag_format", "soft_overlong", "repetition/repetition_penalty"},
    ),
    "code_spec.yaml": ("code.jsonl", "correct", 1.5, {"code_pass_rate", "code_all_pass"}),
    "length_budget_spec.yaml": ("length_budget.jsonl", "correct_at_budget", 1.2, {"length_budget", "think_format"}),
    "code_datasets_spec.yaml": ("code_datasets.jsonl", "correct", 1.5, {"code_pass_rate", "code_all_pass"}),
    "ifeval_spec.yaml": ("ifeval.jsonl", "follows_all", 1.0, {"ifeval_reward"}),
    "tool_calls_spec.yaml": ("tool_calls.jsonl", "correct_hermes", 1.0, {"tool_reward"}),
}


def test_examples_specs_are_all_covered():
    from pathlib import Path

    found = {path.name for path in (Path(__file__).resolve().parents[2] / "examples").glob("*_spec.yaml")}
    assert found, "no examples/*_spec.yaml found"
    assert found == set(EXAMPLE_SPECS)


@pytest.mark.parametrize("spec_name", sorted(EXAMPLE_SPECS))
def test_examples_specs_build(spec_name):
    from pathlib import Path

    import yaml

    examples = Path(__file__).resolve().parents[2] / "examples"
    data_name, style, best, components = EXAMPLE_SPECS[spec_name]
    spec = yaml.safe_load((examples / spec_name).read_text())
    for term in spec.get("terms", []):  # a loaded test machine must not turn a math verdict into a timeout
        if term.get("reward") == "math_accuracy":
            term["params"] = {**term.get("params", {}), "timeout": 20.0}
    rows = [json.loads(line) for line in (examples / data_name).read_text().splitlines()]
    good = [row for row in rows if row["style"] == style][:2]
    unanswered = next(
        row
        for row in rows
        if row["style"] in ("no_answer", "no_code", "unformatted_refusal", "unclosed_think", "no_call")
    )
    batch = [*good, unanswered]
    keys = {key for row in batch for key in row if key not in ("prompt", "completion")}
    columns = {key: [row.get(key) for row in batch] for key in sorted(keys)}
    with rk.build_reward(spec) as reward:
        assert isinstance(reward, rk.Reward)
        assert reward.name == spec["name"]
        explained = reward.explain(
            prompts=[row["prompt"] for row in batch], completions=[row["completion"] for row in batch], **columns
        )
    assert 1 <= len(good) <= 2  # the single-reward specs' examples show each style once
    for row in explained:
        assert set(row["components"]) == components
    assert [row["reward"] for row in explained[: len(good)]] == [pytest.approx(best)] * len(good)
    assert [row["status"] for row in explained[: len(good)]] == ["ok"] * len(good)
    assert explained[len(good)]["reward"] < best


def test_a_verifier_backed_length_reward_keeps_working_under_a_spec_name():
    spec = {"reward": "cosine_length", "name": "short_and_right", "params": {"max_length": 10, "unit": "chars"}}
    with rk.build_reward(spec) as reward:
        rows = reward.explain(completions=[r"\boxed{2}"], answer=["2"])
    assert rows[0]["components"]["short_and_right"] == pytest.approx(0.5 + 0.25 * (1 + math.cos(math.pi * 0.9)))
    assert rows[0]["verdicts"] == {"short_and_right": {"status": "ok", "extracted": "2"}}
