"""The bundled length-budget spec through `rewardkit score`: every row scores what L1's formulas give it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml
from click.testing import CliRunner

from rewardkit.cli import main
from rewardkit.rewards.length_budget import l1_exact, l1_max

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def expected(row: dict, params: dict, format_weight: float) -> float | None:
    """What the spec should pay the row, from its words, its budget and whether it boxes the answer."""
    budget = row.get("budget_words")
    wants_max = False
    if budget is None:
        found = re.search(params["budget_pattern"], row["prompt"], re.IGNORECASE)
        if not found:
            return None if format_weight == 0 else format_weight
        budget, wants_max = int(found.group("budget")), bool(found.group("max"))
    used = len(row["completion"].split())
    correct = 1.0 if rf"\boxed{{{row['answer']}}}" in row["completion"] else 0.0
    if wants_max:
        length = l1_max(correct, budget, used, params["alpha"], params["delta"])
    else:
        length = l1_exact(correct, budget, used, params["alpha"])
    return length + format_weight


def test_rewardkit_score_on_the_bundled_rows_pays_each_row_l1s_value(tmp_path):
    spec_path = EXAMPLES / "length_budget_spec.yaml"
    spec = yaml.safe_load(spec_path.read_text())
    params = spec["terms"][0]["params"]
    format_weight = spec["terms"][1]["weight"]
    out = tmp_path / "scored.jsonl"
    result = CliRunner().invoke(
        main,
        [
            "score",
            "--reward",
            str(spec_path),
            "--input",
            str(EXAMPLES / "length_budget.jsonl"),
            "--output",
            str(out),
            "--no-progress",
        ],
    )
    assert result.exit_code == 0, result.output
    scored = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(scored) == len((EXAMPLES / "length_budget.jsonl").read_text().splitlines())
    styles = set()
    for row in scored:
        styles.add(row["style"])
        want = expected(row, params, format_weight)
        assert abs(row["reward"] - want) < 1e-9, (row["style"], row["reward"], want)
        if row["style"] == "no_budget":
            assert row["components"]["length_budget"] is None and row["status"] == "no_budget"
    by_style = {r["style"]: r["reward"] for r in scored}
    assert by_style["correct_at_budget"] > by_style["correct_over_budget"] > by_style["wrong_at_budget"]
    assert {"correct_under_max", "budget_column", "no_answer"} <= styles
