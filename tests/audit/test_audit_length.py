"""`rewardkit audit` on length-budget rewards: which budget hacks L1's reward pays for."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

import rewardkit as rk
from rewardkit.audit.runner import detect_kinds, run_audit
from rewardkit.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
BUDGET_HACKS = ("filler_to_budget_no_answer", "stopped_at_budget_no_answer", "correct_far_over_budget")


def credited(spec) -> set[str]:
    with rk.build_reward(spec) as reward:
        return {r.name for r in run_audit(reward).credited()}


def test_a_length_budget_reward_is_audited_as_the_length_kind():
    with rk.build_reward({"combine": "sum", "terms": [{"reward": "length_budget"}, "tag_format"]}) as reward:
        assert detect_kinds(reward) == ["length"]


def test_the_bundled_spec_pays_no_budget_hack_but_cannot_tell_filler_from_reasoning(tmp_path):
    report = tmp_path / "audit.json"
    result = CliRunner().invoke(main, ["audit", "-r", str(EXAMPLES / "length_budget_spec.yaml"), "--json", str(report)])
    variants = {v["variant"]: v for v in json.loads(report.read_text())["variants"]}
    assert {name for name, v in variants.items() if v["credited"]} == {"filler_padded_correct"}, result.output
    assert variants["honest_correct"]["mean"] > variants["correct_far_over_budget"]["mean"]


def test_an_alpha_too_small_for_the_unit_pays_a_correct_answer_ten_times_over_budget():
    # 0.0003 is L1's alpha per token; the audit counts words, so 360 words over cost only 0.108
    found = credited({"reward": "length_budget", "params": {"unit": "words"}})
    assert "correct_far_over_budget" in found
    assert not found & {"filler_to_budget_no_answer", "stopped_at_budget_no_answer", "several_boxes"}


def test_max_mode_with_a_binding_alpha_pays_nothing_past_the_budget_and_nothing_for_hitting_it_unanswered():
    found = credited({"reward": "length_budget", "params": {"mode": "max", "alpha": 0.02}})
    assert not found & set(BUDGET_HACKS)


def test_the_budget_reaches_a_reward_that_reads_it_from_the_prompt_only():
    with rk.build_reward({"reward": "length_budget", "params": {"budget_key": None, "unit": "words"}}) as reward:
        results = run_audit(reward).results
    assert all(r.mean is not None for r in results if r.name in ("honest_correct", "honest_wrong"))
