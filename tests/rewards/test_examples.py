"""The bundled examples: the generator is deterministic and each completion style scores as it should."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

import rewardkit as rk
from rewardkit.scoring.batch_scoring import score_rows

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def load(name: str) -> list[dict]:
    return [json.loads(line) for line in (EXAMPLES / name).read_text().splitlines()]


def test_generator_is_deterministic_and_matches_committed_files(tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_examples", EXAMPLES / "make_examples.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    counts = module.main(tmp_path)
    assert sum(counts.values()) >= 400
    for name in counts:
        assert (tmp_path / name).read_text() == (EXAMPLES / name).read_text(), name


def generous_timeouts(spec: dict) -> dict:
    """The spec with math timeouts raised, so that a loaded test machine cannot turn a verdict into a timeout."""
    for term in spec.get("terms", []):
        if isinstance(term, dict) and term.get("reward") == "math_accuracy":
            term["params"] = {**term.get("params", {}), "timeout": 20.0}
    return spec


def by_style(spec: str, data: str) -> dict[str, set]:
    import yaml

    reward = rk.build_reward(generous_timeouts(yaml.safe_load((EXAMPLES / spec).read_text())))
    rows = load(data)
    with reward:
        scored, summary = score_rows(reward, rows)
    assert summary.samples == len(rows)
    out: dict[str, set] = defaultdict(set)
    for row, result in zip(rows, scored, strict=False):
        out[row["style"]].add((round(result["reward"], 6), result["status"]))
    return out


def test_math_examples_score_by_style():
    got = by_style("math_spec.yaml", "math.jsonl")
    expected = {
        "correct_tagged": {(1.5, "ok")},
        "correct_decimal": {(1.5, "ok")},
        "chat_correct": {(1.5, "ok")},
        "think_block": {(1.5, "ok")},
        "correct_boxed": {(1.0, "ok")},
        "unformatted": {(1.0, "ok")},
        "trailing_text": {(1.0, "ok")},
        "wrong_tagged": {(0.5, "ok")},
        "hedged": {(0.5, "hedged")},
        "empty_answer_tag": {(0.0, "no_answer")},
        "no_answer": {(0.0, "no_answer")},
    }
    for style, outcomes in expected.items():
        assert got[style] == outcomes, style
    # repetitive: right answer and format, minus the repetition penalty
    assert all(1.0 < reward < 1.5 and status == "ok" for reward, status in got["repetitive"])


def test_mcq_examples_score_by_style():
    got = by_style("mcq_spec.yaml", "mcq.jsonl")
    assert got == {
        "correct_tagged": {(1.2, "ok")},
        "option_text": {(1.2, "ok")},
        "chat_correct": {(1.2, "ok")},
        "think_block": {(1.2, "ok")},
        "correct_statement": {(0.0, "ok")},  # right letter, but outside the format gate
        "wrong": {(0.2, "ok")},
        "hedged": {(0.2, "hedged")},
        "unformatted_refusal": {(0.0, "no_answer")},
    }


def test_mixed_examples_route_rows_to_their_verifier():
    import yaml

    reward = rk.build_reward(generous_timeouts(yaml.safe_load((EXAMPLES / "mixed_spec.yaml").read_text())))
    rows = load("mixed.jsonl")
    with reward:
        scored, summary = score_rows(reward, rows, batch_size=32, workers=2)
    for row, result in zip(rows, scored, strict=False):
        components = result["components"]
        if row["task"] == "math":
            assert components["mcq_accuracy"] is None and components["math_accuracy"] is not None
        else:
            assert components["math_accuracy"] is None and components["mcq_accuracy"] is not None
    assert summary.component_counts["math_accuracy"] == summary.component_counts["mcq_accuracy"] == 100


@pytest.mark.parametrize("name", ["math.jsonl", "mcq.jsonl", "mixed.jsonl", "code.jsonl"])
def test_examples_cover_chat_and_think_blocks(name):
    rows = load(name)
    assert any(isinstance(r["completion"], list) for r in rows)
    if name != "code.jsonl":
        assert any(isinstance(r["completion"], list) and "reasoning_content" in r["completion"][0] for r in rows)


def test_code_dataset_examples_are_deterministic_and_score_by_style(tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_code_datasets", EXAMPLES / "make_code_datasets.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(tmp_path)
    name = "code_datasets.jsonl"
    assert (tmp_path / name).read_text() == (EXAMPLES / name).read_text()
    got = by_style("code_datasets_spec.yaml", name)
    assert got["correct"] == got["chat_correct"] == {(1.5, "ok")}
    assert {reward for reward, _ in got["wrong"]} == {0.0}
    assert got["no_code"] == {(0.0, "compile_error")}
    assert all(0.0 < reward < 1.0 for reward, _ in got["partial"])  # partly right: a fraction, no bonus
