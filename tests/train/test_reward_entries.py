"""The trainer's ``rewards:`` entries: a reward spec file (as ``rewardkit score --reward`` takes), a registered
name, and the labels they are logged under."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from train_helpers import small_config

import rewardkit as rk
from rewardkit.cli import main
from rewardkit.train.config import load_config
from rewardkit.train.scoring import resolve_rewards, score_completions

SPEC = {
    "name": "from_spec",
    "combine": "sum",
    "terms": [
        {"reward": "toy_rewards:constant", "name": "quarter", "params": {"value": 0.25}},
        {"reward": "toy_rewards:constant", "name": "half", "params": {"value": 0.5}, "weight": 2.0},
    ],
}


@pytest.fixture
def spec_file(tmp_path: Path) -> Path:
    path = tmp_path / "reward.yaml"
    path.write_text(yaml.safe_dump(SPEC))
    return path


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_rewardkit_train_trains_on_the_reward_a_spec_file_gives(tmp_path, student_dir, spec_file):
    config = tmp_path / "run.yaml"
    config.write_text(yaml.safe_dump(small_config(tmp_path / "out", student_dir, rewards=[{"spec": str(spec_file)}])))
    result = CliRunner().invoke(main, ["train", "--config", str(config), "--no-progress"])
    assert result.exit_code == 0, result.output
    steps = [r for r in _rows(tmp_path / "out" / "metrics.jsonl") if "reward/mean" in r]
    assert [r["step"] for r in steps] == [1, 2]
    for row in steps:
        assert row["reward/mean"] == pytest.approx(1.25)  # 0.25 + 2 x 0.5: the spec's terms and weights
        assert row["reward/from_spec/mean"] == pytest.approx(1.25)
        assert row["reward_metrics/rewards/from_spec/quarter/mean"] == pytest.approx(0.25)
        assert row["reward_metrics/rewards/from_spec/half/mean"] == pytest.approx(0.5)


def test_a_spec_entry_takes_a_file_or_a_mapping_and_name_takes_a_spec_file_as_score_does(tmp_path, spec_file):
    base = small_config(tmp_path, tmp_path)
    entries = [{"spec": str(spec_file)}, {"spec": {**SPEC, "name": "inline"}}, {"name": str(spec_file), "label": "n"}]
    terms = resolve_rewards(load_config({**base, "rewards": entries}).rewards)
    assert [t.label for t in terms] == ["from_spec", "inline", "n"]
    scores = score_completions(terms, ["1+1="] * 2, ["2", "3"], [{"prompt": "1+1=", "answer": "2"}] * 2)
    assert {label: values.tolist() for label, values in scores.components.items()} == {
        "from_spec": [1.25, 1.25],
        "inline": [1.25, 1.25],
        "n": [1.25, 1.25],
    }
    assert scores.metrics["rewards/n/quarter/mean"] == 0.25  # a label is also the name the spec logs under


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"spec": "math_accuracy"}, r"config.rewards\[0\].spec: expected a reward spec file \(.yaml, .yml or .json\)"),
        ({"spec": "missing.yaml"}, r"config.rewards\[0\].spec: reward spec file 'missing.yaml' does not exist"),
        ({"spec": 3}, r"config.rewards\[0\].spec: expected str or dict or null, got 3"),
        ({"spec": "x.yaml", "name": "math_accuracy"}, r"give exactly one of 'name' .* got name, spec"),
        ({}, r"give exactly one of 'name' .*'spec' .*'function' .* got none of them"),
    ],
)
def test_a_bad_reward_entry_says_what_is_expected(tmp_path, entry, message):
    with pytest.raises(rk.ConfigError, match=message):
        load_config({**small_config(tmp_path, tmp_path), "rewards": [entry]})


def test_a_bad_spec_names_the_entry_and_the_spec_field(tmp_path, spec_file):
    base = small_config(tmp_path, tmp_path)
    bad = {"spec": {"combine": "sum", "terms": [{"reward": "math_acuracy"}]}}
    with pytest.raises(rk.ConfigError, match=r"config.rewards\[0\].spec: spec.terms\[0\].reward: unknown reward .*"):
        resolve_rewards(load_config({**base, "rewards": [bad]}).rewards)
    with_params = {"spec": str(spec_file), "params": {"value": 1}}
    with pytest.raises(rk.ConfigError, match=r"config.rewards\[0\].params: .* is a reward spec, which gives each term"):
        resolve_rewards(load_config({**base, "rewards": [with_params]}).rewards)


def test_verifier_accuracy_entries_are_labelled_by_verifier_and_collisions_numbered(tmp_path):
    entries = [
        {"name": "verifier_accuracy", "params": {"verifier": "math"}},
        {"name": "verifier_accuracy", "params": {"verifier": "math", "value": "correct"}},
        {"name": "verifier_accuracy", "params": {"verifier": "mcq"}},
    ]
    terms = resolve_rewards(load_config({**small_config(tmp_path, tmp_path), "rewards": entries}).rewards)
    assert [t.label for t in terms] == ["math", "math_2", "mcq"]
    scores = score_completions(terms, ["q"], ["answer: 4"], [{"prompt": "q", "answer": "4"}])
    assert scores.metrics["rewards/math/status/ok"] == scores.metrics["rewards/math_2/status/ok"] == 1.0
    assert "rewards/mcq/infrastructure_failure_rate" in scores.metrics


def test_an_open_r1_reward_name_works_in_the_training_config(tmp_path):
    entries = [{"name": "format", "weight": 0.1}, {"name": "accuracy"}]
    terms = resolve_rewards(load_config({**small_config(tmp_path, tmp_path), "rewards": entries}).rewards)
    assert [t.label for t in terms] == ["format", "accuracy"]
    done = "<think>\nadd\n</think>\n<answer>\n\\boxed{2}\n</answer>"
    scores = score_completions(terms, ["1+1="], [done], [{"prompt": "1+1=", "solution": "2"}])
    assert scores.total.tolist() == [pytest.approx(1.1)]


def test_a_function_entrys_params_are_its_factorys_arguments_checked_like_a_registered_rewards(tmp_path):
    base = small_config(tmp_path, tmp_path)
    good = {"function": "toy_rewards:scaled_length", "params": {"factor": 0.5}}
    (term,) = resolve_rewards(load_config({**base, "rewards": [good]}).rewards)
    assert score_completions([term], ["q"], ["four"], [{"prompt": "q"}]).total.tolist() == [2.0]
    for params, message in (
        ({"factor": "big"}, r"config.rewards\[0\].params: factor: expected a number \(a parameter of reward factory "),
        ({"factr": 2}, r"config.rewards\[0\].params: bad parameters for reward factory .*; it accepts: factor"),
    ):
        bad = {"function": "toy_rewards:scaled_length", "params": params}
        with pytest.raises(rk.ConfigError, match=message):
            resolve_rewards(load_config({**base, "rewards": [bad]}).rewards)
