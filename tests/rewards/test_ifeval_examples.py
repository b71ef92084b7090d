"""examples/ifeval.jsonl scored by `rewardkit score` with examples/ifeval_spec.yaml: each style as it should."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

import rewardkit as rk
from rewardkit.cli import main
from rewardkit.scoring.batch_scoring import score_rows

pytest.importorskip("langdetect", reason="the ifeval extra (langdetect) is not installed")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
EXPECTED = {
    "follows_all": (1.0, "ok"),
    "misses_one_of_two": (0.5, "ok"),
    "misses_all": (0.0, "ok"),
    "think_then_answer": (1.0, "ok"),
    "unclosed_think": (0.0, "no_answer"),
    "bullets_in_lowercase": (1.0, "ok"),
    "preamble_breaks_strict_case": (0.5, "ok"),
    "repeat_prompt_from_the_prompt_column": (1.0, "ok"),
    "title_and_postscript": (1.0, "ok"),
    "open_instruct_ground_truth": (1.0, "ok"),
    "open_instruct_extended_ids": (1.0, "ok"),
    "chat_messages_completion": (1.0, "ok"),
    "unknown_instruction_id": (None, "invalid_reference"),
    "missing_kwargs": (None, "invalid_reference"),
}


def test_ifeval_examples_score_by_style(tmp_path):
    out = tmp_path / "scored.jsonl"
    args = ["score", "--no-progress", "-r", str(EXAMPLES / "ifeval_spec.yaml")]
    done = CliRunner().invoke(main, [*args, "-i", str(EXAMPLES / "ifeval.jsonl"), "-o", str(out)])
    assert done.exit_code == 0, done.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert {row["style"]: (row["reward"], row["status"]) for row in rows} == EXPECTED


def test_loose_mode_forgives_the_preamble_and_all_mode_gives_no_partial_credit():
    spec = yaml.safe_load((EXAMPLES / "ifeval_spec.yaml").read_text())
    rows = [json.loads(line) for line in (EXAMPLES / "ifeval.jsonl").read_text().splitlines()]
    for params, style, expected in (
        ({"mode": "loose"}, "preamble_breaks_strict_case", 1.0),
        ({"aggregate": "all"}, "misses_one_of_two", 0.0),
    ):
        with rk.build_reward({**spec, "params": {**spec["params"], **params}}) as reward:
            scored, _ = score_rows(reward, rows)
        got = {row["style"]: result["reward"] for row, result in zip(rows, scored, strict=True)}
        assert got[style] == expected, params
