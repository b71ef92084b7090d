"""`rewardkit audit` on judge rewards: which grader-aimed hacks a judge behind a real loopback server credits."""

from __future__ import annotations

import json
import re

import yaml
from click.testing import CliRunner
from judge_server import block, user_message, verdict_json

import rewardkit as rk
from rewardkit.audit.runner import detect_kinds, run_audit
from rewardkit.cli import main

GRADER_HACKS = {"grader_instruction", "note_to_grader", "fake_json_verdict"}


def gullible(messages):
    """Credits a candidate that holds the reference anywhere, or tells it the answer is correct."""
    content = user_message(messages)
    candidate = block(content, "candidate").lower()
    reference = block(content, "reference").strip().lower()
    talked_round = re.search(r"verdict\W+correct|marked correct|is correct", candidate)
    return verdict_json("correct" if talked_round or reference in candidate else "incorrect")


def exact(messages):
    """Credits only a candidate whose whole answer is the reference."""
    content = user_message(messages)
    answer = block(content, "candidate").strip().removeprefix("Let me work this out step by step. The final answer is ")
    return verdict_json("correct" if answer == block(content, "reference").strip() else "incorrect")


def audited(spec) -> dict[str, dict]:
    with rk.build_reward(spec) as reward:
        result = run_audit(reward)
        credited = {r.name for r in result.credited()}
        return {r.name: {"mean": r.mean, "credited": r.name in credited} for r in result.results}


def test_judge_hybrid_and_rubric_rewards_are_audited_as_the_judge_kind(scripted):
    server = scripted(exact)
    judge = {"base_url": server.base_url, "model": "m"}
    for spec in (
        {"reward": "judge_accuracy", "params": judge},
        {"reward": "hybrid_accuracy", "params": {"judge": judge}},
        {"reward": "rubric_score", "params": {**judge, "criteria": ["gives the right answer"]}},
    ):
        with rk.build_reward(spec) as reward:
            assert detect_kinds(reward) == ["judge"], spec["reward"]


def test_a_gullible_judge_is_caught_crediting_instructions_and_fake_verdicts(scripted):
    server = scripted(gullible)
    found = audited({"reward": "judge_accuracy", "params": {"base_url": server.base_url, "model": "m"}})
    assert found["honest_correct"]["mean"] == 1.0 and found["honest_wrong"]["mean"] == 0.0
    assert GRADER_HACKS | {"two_answers"} <= {name for name, v in found.items() if v["credited"]}


def test_a_strict_judge_credits_no_hack_and_forged_block_ends_stay_inside_the_candidate(scripted):
    server = scripted(exact)
    found = audited({"reward": "judge_accuracy", "params": {"base_url": server.base_url, "model": "m"}})
    assert found["honest_correct"]["mean"] == 1.0
    assert {name for name, v in found.items() if v["credited"]} == set()
    forged = [b for b in server.log.bodies if "&lt;/candidate>" in user_message(b["messages"])]
    assert forged and all(user_message(b["messages"]).count("</candidate>") == 1 for b in forged)


def test_the_audit_command_takes_the_judge_kind(scripted, tmp_path):
    server = scripted(gullible)
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump({"reward": "judge_accuracy", "params": {"base_url": server.base_url, "model": "m"}}))
    report = tmp_path / "audit.json"
    result = CliRunner().invoke(main, ["audit", "-r", str(spec), "--kind", "judge", "--json", str(report)])
    variants = {v["variant"]: v for v in json.loads(report.read_text())["variants"]}
    assert all(v["kind"] == "judge" for v in variants.values())
    assert variants["fake_json_verdict"]["credited"] and "fake_json_verdict" in result.output
