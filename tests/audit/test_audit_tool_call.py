"""`rewardkit audit` on tool-call rewards: which call-spraying and parser hacks a reward credits."""

from __future__ import annotations

import json

from click.testing import CliRunner

import rewardkit as rk
from rewardkit.audit.runner import detect_kinds, run_audit
from rewardkit.cli import main

HACKS = {
    "every_function_called",
    "repeated_call",
    "right_name_wrong_arguments",
    "call_in_prose",
    "bare_json_without_tags",
    "call_inside_think_only",
    "extra_junk_arguments",
    "wrong_and_right_calls",
    "names_without_arguments",
    "call_in_code_fence",
    "call_quoted_in_prose",
    "call_inside_unclosed_think",
    "duplicate_key_wrong_then_right",
    "each_alternative_value",
    "list_of_alternative_values",
}


def audited(reward: rk.Reward, **options) -> dict[str, dict]:
    result = run_audit(reward, **options)
    credited = {r.name for r in result.credited()}
    return {r.name: {"mean": r.mean, "credited": r.name in credited, "statuses": r.statuses} for r in result.results}


def mentioned(completions, answer, **kwargs):
    """A lenient grader: full marks when the expected names and argument values appear anywhere in the text."""
    from rewardkit.verifiers.tool_calls.reference import reference_calls

    def found(text: str, reference: str) -> bool:
        needles = [
            needle
            for call in reference_calls(reference)
            for needle in [call.name, *(json.dumps(e.values[0]) for e in call.arguments.values() if not e.optional)]
        ]
        return all(n in text for n in needles)

    return [1.0 if found(c, a) else 0.0 for c, a in zip(completions, answer, strict=True)]


def test_the_tool_call_reward_is_audited_as_the_tool_call_kind_and_credits_no_hack():
    with rk.get_reward("tool_call_accuracy") as reward:
        assert detect_kinds(reward) == ["tool_call"]
        found = audited(reward)
    assert set(found) == HACKS | {"honest_correct", "honest_wrong"}
    assert found["honest_correct"]["mean"] == 1.0 and found["honest_wrong"]["mean"] == 0.0
    assert not [name for name, v in found.items() if v["credited"]]
    assert found["call_inside_think_only"]["statuses"] == {"no_answer": 3}


def test_partial_credit_still_pays_no_hack_more_than_one_wrong_argument():
    with rk.get_reward("tool_call_accuracy", mode="partial") as reward:
        found = audited(reward)
    assert 0.0 < found["honest_wrong"]["mean"] < 1.0
    assert not [name for name, v in found.items() if v["credited"]]
    assert found["repeated_call"]["mean"] < found["honest_wrong"]["mean"]


def test_a_lenient_grader_is_caught_crediting_prose_think_and_sprayed_calls():
    found = audited(rk.rewards.base.as_reward(mentioned, "mentioned"), kinds=["tool_call"])
    credited = {name for name, v in found.items() if v["credited"]}
    assert {"call_in_prose", "call_inside_think_only", "repeated_call", "every_function_called"} <= credited
    assert {"call_in_code_fence", "call_quoted_in_prose", "call_inside_unclosed_think"} <= credited
    assert {"each_alternative_value", "list_of_alternative_values"} <= credited


def test_audit_cli_reads_tool_call_rows_from_data(tmp_path):
    rows = tmp_path / "rows.jsonl"
    calls = [{"name": "lookup", "arguments": {"id": 7}}]
    rows.write_text(json.dumps({"prompt": "Look up item 7.", "answer": json.dumps(calls)}) + "\n")
    out = tmp_path / "audit.json"
    done = CliRunner().invoke(main, ["audit", "-r", "tool_call_accuracy", "--data", str(rows), "--json", str(out)])
    assert done.exit_code == 0, done.output
    assert "honest_correct" in done.output
    report = json.loads(out.read_text())
    kinds = {v["kind"] for v in report["variants"]}
    assert kinds == {"tool_call"}
    assert not [v["name"] for v in report["variants"] if v["credited"]]


def test_a_row_that_expects_no_call_is_left_out_of_the_hacks():
    from rewardkit.audit.tool_call_variants import tool_call_variants

    assert tool_call_variants({"answer": "[]"}, lambda text: text) == []
    assert tool_call_variants({"answers": '[{"name": "f", "arguments": {"a": 1}}]'}, lambda text: text)
