"""The ``rewardkit`` command line: ``verify mcq``, ``plugins``, ``--help`` (``verify math`` is tested with math)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import rewardkit as rk
from rewardkit.cli import main


@pytest.fixture
def invoke(monkeypatch):
    for var in ("REWARDKIT_BLOCK_PLUGINS", "REWARDKIT_ALLOW_PLUGINS"):
        monkeypatch.delenv(var, raising=False)
    runner = CliRunner()

    def run(*args: str, stdin: str | None = None):
        return runner.invoke(main, list(args), input=stdin, catch_exceptions=False)

    return run


# (name, arguments, expected correct, expected status, expected extracted)
VERIFY_MCQ = [
    ("options_given", ["--reference", "B", "--option", "Paris", "--option", "London", "Answer: (B)"], True, "ok", "B"),
    (
        "option_text_alone",
        ["-r", "B", "--option", "Paris", "--option", "London", "The answer is London."],
        True,
        "ok",
        "B",
    ),
    ("hedge", ["-r", "B", "Answer: A or B"], False, "hedged", "A,B"),
    ("wrong_letter", ["-r", "B", r"Therefore the answer is $\boxed{C}$."], False, "ok", "C"),
    ("param_limits_letters", ["-r", "B", "-p", "max_options=4", "Answer: E"], False, "invalid_option", "E"),
    (
        "context_as_json",
        ["-r", "B", "-c", 'options=["Paris", "London"]', "Answer: B) Paris"],
        False,
        "option_mismatch",
        "B",
    ),
    ("no_answer", ["-r", "B", "I would need a map."], False, "no_answer", None),
    ("mmlu_index_reference", ["-r", "1", "--option", "Paris", "--option", "London", "Answer: B"], True, "ok", "B"),
    ("mmlu_choices_json", ["-r", "0", "--choices", '["Paris", "London"]', "The answer is London"], False, "ok", "B"),
    (
        "arc_digit_labels",
        ["-r", "2", "--option", "Paris", "--option", "London", "--label", "1", "--label", "2", "Answer: (2)"],
        True,
        "ok",
        "B",
    ),
    (
        "arc_choices_json",
        ["-r", "1", "--choices", '{"text": ["Paris", "London"], "label": ["1", "2"]}', "The answer is 2"],
        False,
        "ok",
        "B",
    ),
]


@pytest.mark.parametrize("name, args, correct, status, extracted", VERIFY_MCQ, ids=[r[0] for r in VERIFY_MCQ])
def test_verify_mcq_prints_the_verdict(invoke, name, args, correct, status, extracted):
    result = invoke("verify", "mcq", *args)
    assert result.exit_code == 0, result.output
    verdict = json.loads(result.output)
    assert (verdict["correct"], verdict["status"], verdict["extracted"]) == (correct, status, extracted)
    assert verdict["score"] == (1.0 if correct else 0.0)
    assert set(verdict) == {"score", "correct", "status", "extracted", "details"}


def test_verify_reads_the_completion_from_stdin(invoke):
    result = invoke("verify", "mcq", "--reference", "C", "-", stdin="Long reasoning...\n\n**C**\n")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["correct"] is True


@pytest.mark.parametrize(
    "args, message",
    [
        (["verify", "mcq", "-r", "B", "-p", "max_option=4", "Answer: B"], "bad parameters for verifier 'mcq'"),
        (["verify", "mqc", "-r", "B", "Answer: B"], "unknown verifier 'mqc'; registered verifiers: "),
        (["verify", "mcq", "-r", "B", "-c", 'options="Paris"', "Answer: B"], "options must be a list"),
        (["verify", "mcq", "-r", "B", "-p", "max_options", "Answer: B"], "expected KEY=VALUE"),
        (["verify", "mcq", "Answer: B"], "Missing option '--reference'"),
        (
            ["verify", "math", "-r", "2", "-p", "timeout=abc", "2"],
            "timeout: expected a number (a parameter of verifier 'math'), got str 'abc'",
        ),
        (["verify", "math", "-r", "2", "-p", "timeout=0", "2"], "timeout must be a positive number"),
        (["verify", "math", "-r", "2", "-p", "workers=1.5", "2"], "workers: expected an integer or null"),
        (["verify", "mcq", "-r", "B", "-p", "lowercase=maybe", "Answer: B"], "lowercase: expected true or false"),
        (["verify", "code", "-r", "[]", "-p", "wall_time=soon", "x"], "wall_time: expected a number"),
    ],
)
def test_verify_usage_errors_are_clear_and_nonzero(invoke, args, message):
    result = invoke(*args)
    assert result.exit_code != 0
    assert message in result.output
    assert "Traceback" not in result.output


def test_unknown_verifier_error_lists_what_is_registered(invoke):
    result = invoke("verify", "mqc", "-r", "B", "Answer: B")
    for name in rk.plugin_host().registries.verifiers.names():
        assert name in result.output
    assert "Did you mean 'mcq'?" in result.output


def test_plugins_lists_builtins_hooks_and_registrations(invoke):
    result = invoke("plugins")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    start = lines.index(next(line for line in lines if line.startswith("rewardkit.verifiers.builtin")))
    assert "[builtin]" in lines[start] and f"(rewardkit {rk.__version__})" in lines[start]
    assert lines[start + 1].strip() == "hooks: register_verifiers"
    assert lines[start + 2].strip().startswith("verifiers: ") and "mcq" in lines[start + 2]


def test_plugins_json_matches_the_host(invoke):
    result = invoke("plugins", "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert rows == json.loads(json.dumps(rk.plugin_host().describe()))
    keys = {"name", "source", "distribution", "version", "hooks", "registered", "broken", "error"}
    assert all(set(row) == keys and row["broken"] is False and row["error"] is None for row in rows)


def test_plugins_shows_a_plugin_registered_at_run_time(invoke):
    class Plugin:
        @rk.hookimpl
        def register_rewards(self, register):
            register("always_one", lambda prompts, completions, **kw: [1.0] * len(completions))

    name = rk.plugin_host().register(Plugin(), name="cli-test-plugin")
    try:
        result = invoke("plugins")
    finally:
        rk.plugin_host().unregister(name=name)
    assert "cli-test-plugin [registered at run time]" in result.output
    assert "rewards: always_one" in result.output


def test_help_lists_commands_and_examples(invoke):
    result = invoke("--help")
    assert result.exit_code == 0
    for text in ("verify", "plugins", "Examples:", "rewardkit verify mcq --reference B", "rewardkit plugins"):
        assert text in result.output
    verify_help = invoke("verify", "--help").output
    for option in ("--reference", "--option", "--param", "--context", "standard input"):
        assert option in verify_help


def test_version(invoke):
    result = invoke("--version")
    assert result.exit_code == 0 and rk.__version__ in result.output


def test_installed_console_script_runs():
    script = Path(sys.executable).parent / "rewardkit"
    command = [str(script)] if script.exists() else [sys.executable, "-m", "rewardkit.cli"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("REWARDKIT_")}
    done = subprocess.run(
        [*command, "verify", "mcq", "-r", "A", "(a)"], check=False, capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["correct"] is True
    done = subprocess.run([*command, "--help"], check=False, capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0 and "Examples:" in done.stdout
