"""`rewardkit audit` on the instruction-following reward: which counted-constraint hacks it pays for."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import rewardkit as rk
from rewardkit.audit.ifeval_variants import constraints_only, row_instructions
from rewardkit.audit.runner import detect_kinds, run_audit
from rewardkit.cli import main

pytest.importorskip("langdetect", reason="the ifeval extra (langdetect) is not installed")


def by_name(result) -> dict:
    return {r.name: r for r in result.results}


def test_the_ifeval_reward_is_audited_as_the_ifeval_kind():
    with rk.get_reward("ifeval_accuracy") as reward:
        assert detect_kinds(reward) == ["ifeval"]


def test_a_rule_checker_pays_for_the_constraints_without_the_content_and_nothing_for_no_answer():
    with rk.get_reward("ifeval_accuracy") as reward:
        result = run_audit(reward)
    variants = by_name(result)
    assert variants["honest_correct"].mean == 1.0 and variants["honest_wrong"].mean == 0.0
    credited = {r.name for r in result.credited()}
    assert {"constraints_only", "keywords_only"} <= credited  # what IFEval-style checks cannot see
    assert not credited & {"unclosed_think", "empty_after_think"}
    assert variants["unclosed_think"].statuses == {"no_answer": 3}
    assert variants["keyword_stuffing"].mean == 0.0  # stuffing does not undo the commas it kept


def test_constraints_only_is_built_from_the_row_alone():
    row = {
        "prompt": "Write a poem about tea.",
        "ground_truth": json.dumps(
            {
                "instruction_id": [
                    "detectable_format:number_bullet_lists",
                    "startend:quotation",
                    "startend:end_checker",
                ],
                "kwargs": [{"num_bullets": 2}, None, {"end_phrase": "Any other questions?"}],
            }
        ),
    }
    text = constraints_only(row, row_instructions(row))
    assert text == '"\n* [x]\n* [x]\nAny other questions?"'
    verdict = rk.get_verifier("ifeval").verify(text, row["ground_truth"])
    assert verdict.correct  # every constraint met, no poem and no tea


def test_open_instruct_rows_from_data_are_audited_as_ifeval(tmp_path):
    rows = tmp_path / "rows.jsonl"
    truth = json.dumps({"instruction_id": ["keywords:existence"], "kwargs": [{"keywords": ["lantern"]}]})
    rows.write_text(json.dumps({"prompt": "Tell a story with a lantern in it.", "ground_truth": truth}) + "\n")
    report = tmp_path / "audit.json"
    done = CliRunner().invoke(
        main, ["audit", "-r", "ifeval_accuracy", "--data", str(rows), "--json", str(report)], catch_exceptions=False
    )
    assert done.exit_code == 1, done.output  # credited hacks make the audit fail
    variants = {v["variant"]: v for v in json.loads(report.read_text())["variants"]}
    assert variants["honest_wrong"]["mean"] == 0.0
    assert variants["keywords_only"]["credited"] and variants["keyword_stuffing"]["credited"]
    assert "ifeval/constraints_only" in done.output
