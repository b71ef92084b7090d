"""``rewardkit audit``: the bundled example specs credit no known hack; weak rewards are flagged."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

import rewardkit as rk
from rewardkit.audit.runner import detect_kinds, run_audit
from rewardkit.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def any_box(prompts, completions, **kwargs):
    """Deliberately weak: 1.0 for any completion with a \\boxed{...}, whatever is in it."""
    from rewardkit.rewards.inputs import completion_text

    return [1.0 if r"\boxed{" in completion_text(c) else 0.0 for c in completions]


def reference_in_some_box(prompts, completions, answer, **kwargs):
    """Deliberately weak: 1.0 when any \\boxed{} holds the reference, so listing candidates pays."""
    from rewardkit.rewards.inputs import completion_text

    return [
        1.0 if str(ref) in re.findall(r"\\boxed\{([^{}]*)\}", completion_text(c)) else 0.0
        for c, ref in zip(completions, answer, strict=False)
    ]


def exit_code_grader(prompts, completions, tests, **kwargs):
    """Deliberately weak code grader: passes when the program text never raises at the top (no run at all)
    but calls exit; stands in for graders that trust a program's exit status."""
    from rewardkit.rewards.inputs import completion_text

    return [1.0 if "exit(0)" in completion_text(c) else 0.0 for c in completions]


class WeakRewards:
    @rk.hookimpl
    def register_rewards(self, register):
        register("any_box", any_box)
        register("reference_in_some_box", reference_in_some_box)
        register("exit_code_grader", exit_code_grader)


@pytest.fixture
def weak(rewardkit_register):
    rewardkit_register(WeakRewards(), name="weak-rewards")


def audit(*args: str):
    return CliRunner().invoke(main, ["audit", *args])


def generous(spec: Path, tmp_path: Path) -> Path:
    """The spec with long verifier timeouts, so a loaded test machine cannot turn verdicts into timeouts."""
    data = yaml.safe_load(spec.read_text())
    text = yaml.safe_dump(data).replace("timeout: 2.0", "timeout: 20").replace("wall_time: 3", "wall_time: 10")
    out = tmp_path / spec.name
    out.write_text(text)
    return out


@pytest.mark.parametrize("name", ["math_spec.yaml", "mcq_spec.yaml", "mixed_spec.yaml"])
def test_example_specs_credit_no_hack(tmp_path, name):
    report = tmp_path / "audit.json"
    result = audit("-r", str(generous(EXAMPLES / name, tmp_path)), "--json", str(report))
    assert result.exit_code == 0, result.output
    assert "no hack credited" in result.output
    found = json.loads(report.read_text())
    assert found["credited"] == 0
    names = {v["variant"] for v in found["variants"]}
    assert {"honest_correct", "honest_wrong", "empty_tags"} <= names
    by = {(v["kind"], v["variant"]): v["mean"] for v in found["variants"]}
    kind = "mcq" if name == "mcq_spec.yaml" else "math"
    assert by[(kind, "honest_correct")] > by[(kind, "honest_wrong")]  # the audit can tell them apart


def test_code_example_spec_credits_no_hack(tmp_path, ci_require):
    probe = rk.get_reward("code_pass_rate", wall_time=10)
    try:
        status = probe.verifier.verify("```python\ndef f():\n    return 1\n```", "assert f() == 1").status
    finally:
        probe.close()
    ci_require(status == "ok", f"the local sandbox does not run programs here (status {status!r})")
    report = tmp_path / "audit.json"
    result = audit("-r", str(generous(EXAMPLES / "code_spec.yaml", tmp_path)), "--json", str(report))
    assert result.exit_code == 0, result.output
    variants = {v["variant"]: v for v in json.loads(report.read_text())["variants"]}
    assert variants["honest_correct"]["mean"] == 1.5
    for hack in (
        "sys_exit_0",
        "os_exit_0",
        "exit_0_at_exit",
        "always_equal_object",
        "print_pass",
        "monkeypatch_builtins",
    ):
        assert variants[hack]["mean"] == 0.0, hack


def test_a_reward_that_credits_any_box_fails_the_audit(tmp_path, weak):
    page = tmp_path / "report" / "audit.html"
    report = tmp_path / "audit.json"
    result = audit("-r", "any_box", "--kind", "math", "--html", str(page), "--json", str(report))
    assert result.exit_code == 1, result.output
    assert "hack(s) credited" in result.output and "math/honest_wrong" in " ".join(result.output.split())
    found = json.loads(report.read_text())
    wrong = next(v for v in found["variants"] if v["variant"] == "honest_wrong")
    assert wrong["credited"] and wrong["mean"] == 1.0
    assert "CREDITED" in page.read_text() and "any_box" in page.read_text()


def test_listing_candidates_is_flagged_per_hack(tmp_path, weak):
    report = tmp_path / "audit.json"
    result = audit("-r", "reference_in_some_box", "--kind", "math", "--json", str(report))
    assert result.exit_code == 1, result.output
    credited = {v["variant"] for v in json.loads(report.read_text())["variants"] if v["credited"]}
    assert credited == {"several_boxes", "answer_then_correction", "box_then_plain_alternative"}
    # a threshold above the gap lets it pass, as a CI gate with a tolerance would
    assert audit("-r", "reference_in_some_box", "--kind", "math", "--threshold", "1.0").exit_code == 0


def test_code_hacks_against_a_grader_that_trusts_exit(weak):
    reward = rk.get_reward("exit_code_grader")
    result = run_audit(rk.rewards.base.as_reward(reward, "exit_code_grader"), kinds=["code"])
    assert {r.name for r in result.credited()} == {"sys_exit_0", "os_exit_0", "exit_0_at_exit", "exit_early"}


def test_audit_uses_rows_from_data(tmp_path):
    data = tmp_path / "rows.jsonl"
    data.write_text(json.dumps({"prompt": "2+2?", "answer": "4"}) + "\n" + json.dumps({"x": 1}) + "\n")
    report = tmp_path / "audit.json"
    spec = tmp_path / "spec.yaml"
    spec.write_text("reward: math_accuracy\nparams: {timeout: 20}\n")
    result = audit("-r", str(spec), "-d", str(data), "--json", str(report))
    found = json.loads(report.read_text())
    assert result.exit_code == (1 if found["credited"] else 0), result.output
    variants = found["variants"]
    correct = next(v for v in variants if v["variant"] == "honest_correct")
    assert correct["scores"] == [1.0] and "\\boxed{4}" in correct["example"]


def test_audit_errors_exit_2(tmp_path, weak):
    result = audit("-r", "any_box")
    assert result.exit_code == 2 and "name them with --kind" in result.output
    result = audit("-r", str(tmp_path / "missing.yaml"))
    assert result.exit_code == 2
    empty = tmp_path / "rows.jsonl"
    empty.write_text(json.dumps({"x": 1}) + "\n")
    result = audit("-r", "math_accuracy", "-d", str(empty))
    assert result.exit_code == 2 and "has no row for the reward's kinds" in result.output


def test_kinds_are_read_from_the_reward():
    assert detect_kinds(rk.build_reward(str(EXAMPLES / "mixed_spec.yaml"))) == ["math", "mcq"]
    assert detect_kinds(rk.build_reward({"reward": "tag_format"})) == ["format"]


def test_audit_is_listed_in_the_cli_help():
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0 and "audit" in result.output


@pytest.mark.parametrize("extraction", ["strict", "lenient"])
def test_the_math_example_credits_no_hack_in_either_extraction(tmp_path, extraction):
    """The prompt echoed back (its numbers copied, no answer of its own) is a hack in both modes now: neither
    lenient nor strict extraction reads a reference the completion never states."""
    name = "math_spec.yaml"
    spec = yaml.safe_load((EXAMPLES / name).read_text())
    spec["terms"][0]["params"]["extraction"] = extraction
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / name).write_text(yaml.safe_dump(spec))
    report = tmp_path / "audit.json"
    result = audit("-r", str(generous(tmp_path / "src" / name, tmp_path)), "--json", str(report))
    variants = {v["variant"]: v for v in json.loads(report.read_text())["variants"]}
    assert {n for n, v in variants.items() if v["credited"]} == set()
    assert result.exit_code == 0, result.output
    assert {"prompt_echoed", "prompt_numbers_listed"} <= set(variants)


GSM8K_ROWS = [
    {
        "question": "Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in May. "
        "How many clips did Natalia sell altogether in April and May?",
        "answer": "Natalia sold 48/2 = <<48/2=24>>24 clips in May.\nNatalia sold 48+24 = <<48+24=72>>72 clips "
        "altogether in April and May.\n#### 72",
    },
    {
        "question": "Weng earns $12 an hour for babysitting. Yesterday, she just did 50 minutes of babysitting. "
        "How much did she earn?",
        "answer": "Weng earns 12/60 = $<<12/60=0.2>>0.2 per minute.\nWorking 50 minutes, she earned 0.2 x 50 = "
        "$<<0.2*50=10>>10.\n#### 10",
    },
]
MATH_ROWS = [
    {
        "problem": "What is the sum of the roots of $x^2 - 5x + 6 = 0$?",
        "solution": "The roots are $2$ and $3$, so their sum is $2 + 3 = \\boxed{5}$.",
    },
    {
        "problem": "Simplify $\\frac{6}{8}$.",
        "solution": "Dividing by 2 gives $\\frac{3}{4}$, so the answer is $\\boxed{\\frac{3}{4}}$.",
    },
]


@pytest.mark.parametrize("rows", [GSM8K_ROWS, MATH_ROWS], ids=["gsm8k", "math"])
@pytest.mark.parametrize("extraction", ["strict", "lenient"])
def test_dataset_rows_are_audited_around_the_reduced_answer(tmp_path, rows, extraction):
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    spec = tmp_path / "spec.yaml"
    spec.write_text(f"reward: math_accuracy\nparams: {{timeout: 20, extraction: {extraction}}}\n")
    report = tmp_path / "audit.json"
    result = audit("-r", str(spec), "-d", str(data), "--json", str(report))
    variants = {v["variant"]: v for v in json.loads(report.read_text())["variants"]}
    assert [n for n, v in variants.items() if v["credited"]] == [], result.output
    assert result.exit_code == 0
    correct = variants["honest_correct"]
    assert correct["scores"] == [1.0, 1.0]
    assert "####" not in correct["example"] and "\\boxed{" in correct["example"]


def test_a_reward_without_a_verifier_term_is_audited_by_the_kind_of_its_rows(tmp_path, weak):
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in GSM8K_ROWS))
    report = tmp_path / "audit.json"
    result = audit("-r", "any_box", "-d", str(data), "--json", str(report))
    assert result.exit_code == 1, result.output  # any box pays: the math hacks are credited, not an exit 2
    kinds = {v["kind"] for v in json.loads(report.read_text())["variants"]}
    assert kinds == {"math"}
