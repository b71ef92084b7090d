"""examples/tool_calls.jsonl scored by `rewardkit score` with examples/tool_calls_spec.yaml: each style as it should."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from rewardkit.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
EXPECTED = {
    "correct_hermes": (1.0, "ok"),
    "correct_openai_messages": (1.0, "ok"),
    "default_left_out": (1.0, "ok"),
    "parallel_any_order": (1.0, "ok"),
    "int_as_float": (1.0, "ok"),
    "bfcl_reference": (1.0, "ok"),
    "multi_turn_final": (1.0, "ok"),
    "wrong_argument": (0.5, "ok"),
    "missing_call": (0.5, "ok"),
    "extra_call": (0.5, "ok"),
    "wrong_type": (0.0, "schema_violation"),
    "unknown_function": (0.0, "unknown_function"),
    "malformed_json": (0.0, "malformed_call"),
    "call_inside_think": (0.0, "no_answer"),
    "no_call": (0.0, "no_answer"),
    "bad_reference": (None, "invalid_reference"),
}


def test_tool_call_examples_score_by_style(tmp_path):
    out = tmp_path / "scored.jsonl"
    args = ["score", "--no-progress", "-r", str(EXAMPLES / "tool_calls_spec.yaml")]
    done = CliRunner().invoke(main, [*args, "-i", str(EXAMPLES / "tool_calls.jsonl"), "-o", str(out)])
    assert done.exit_code == 0, done.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    got = {row["style"]: (row["reward"], row["status"]) for row in rows}
    assert got == EXPECTED
