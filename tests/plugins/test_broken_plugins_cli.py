"""The ``rewardkit`` command with every kind of broken plugin pip-installed beside a working one: ``plugins``
lists them, commands that do not need them go on with a warning, and a strict run (the variable, or CI=true)
stops with an error naming them."""

from __future__ import annotations

import json

import pytest
from plugin_dists import plugins_json, run_cli

from rewardkit.plugins.naming import BLOCK_ENV, STRICT_ENV

# kind -> (plugin name, text its error must hold)
BROKEN = {
    "raises-on-import": ("import-boom", "RuntimeError('cannot find my model weights')"),
    "missing-attribute": ("ghost", "has no attribute 'no_such_plugin'"),
    "hook-raises": ("half-done", "failed in register_rewards: RuntimeError('reward table missing')"),
    "name-clash": ("clasher", "duplicate verifier name 'mcq'"),
}
VERIFY_MATH = ["verify", "math", "-r", "4", r"The answer is \boxed{4}"]
STRICT_ENVS = [{STRICT_ENV: "1"}, {"CI": "true"}, {STRICT_ENV: "true", "CI": "false"}]


@pytest.fixture(scope="module")
def paths(plugin_targets, broken_targets):
    """Every broken plugin's --target folder, and the working demo plugin's."""
    return (*broken_targets.values(), plugin_targets["demo"])


def test_plugins_json_lists_every_broken_plugin_and_everything_else(paths):
    rows = {row["name"]: row for row in plugins_json(*paths)}
    for kind, (name, error) in BROKEN.items():
        assert rows[name]["broken"] is True, rows[name]
        assert rows[name]["distribution"] == f"rewardkit-{kind}" and rows[name]["version"] == "0.3"
        assert error in rows[name]["error"]
    demo = rows["demo"]
    assert demo["broken"] is False and demo["error"] is None
    assert demo["registered"] == {"verifier": ["exact"], "reward": ["shortness"]}
    assert rows["rewardkit.verifiers.builtin"]["registered"]["verifier"] == [
        "code",
        "hybrid",
        "ifeval",
        "judge",
        "math",
        "mcq",
        "rubric",
        "tool_call",
    ]


def test_plugins_text_marks_a_broken_plugin_and_shows_its_error(paths):
    done = run_cli(["plugins"], *paths)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    at = lines.index("import-boom (rewardkit-raises-on-import 0.3) [entry point] BROKEN")
    assert lines[at + 1].startswith("  error: loading 'rewardkit_raises_on_import_plugin' raised RuntimeError(")
    assert "demo (rewardkit-demo-plugin 1.2.3) [entry point]" in lines
    assert "Warning" not in done.stderr  # the listing is the report


@pytest.mark.parametrize("env", STRICT_ENVS, ids=lambda env: ",".join(f"{k}={v}" for k, v in env.items()))
def test_plugins_in_a_strict_run_still_lists_then_fails(paths, env):
    done = run_cli(["plugins", "--json"], *paths, **env)
    assert done.returncode == 1
    rows = {row["name"]: row for row in json.loads(done.stdout)}
    assert rows["ghost"]["broken"] is True and rows["demo"]["broken"] is False
    assert done.stderr.startswith("Error: plugin 'import-boom' (entry point ")
    for name, _ in BROKEN.values():
        assert f"plugin {name!r} (entry point" in done.stderr


@pytest.mark.parametrize(
    "args",
    [VERIFY_MATH, ["score", "-r", "math_accuracy", "-i", "examples/math.jsonl", "--limit", "2", "--no-progress"]],
    ids=["verify", "score"],
)
def test_a_command_that_does_not_need_them_goes_on_with_a_warning(paths, args):
    done = run_cli(args, *paths)
    assert done.returncode == 0, done.stderr
    warned = [line for line in done.stderr.splitlines() if line.startswith("Warning: plugin ")]
    for line, (name, error) in zip(sorted(warned), sorted(BROKEN.values()), strict=True):
        assert line.startswith(f"Warning: plugin {name!r} (entry point '{name} = ") and error in line
        assert f"set {STRICT_ENV}=1 (or CI=true) to make this an error" in line
    if args[0] == "verify":
        assert json.loads(done.stdout)["correct"] is True
    else:
        assert "math_accuracy" in done.stdout


@pytest.mark.parametrize("env", STRICT_ENVS, ids=lambda env: ",".join(f"{k}={v}" for k, v in env.items()))
def test_a_strict_run_stops_with_an_error_naming_each_broken_plugin(paths, env):
    done = run_cli(VERIFY_MATH, *paths, **env)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith("Error: plugin 'import-boom' (entry point ")
    for kind, (name, error) in BROKEN.items():
        assert f"plugin {name!r} (entry point '{name} = rewardkit_" in done.stderr
        assert f"distribution 'rewardkit-{kind}' 0.3) failed to load: " in done.stderr and error in done.stderr
    assert "Traceback" not in done.stderr


def test_ci_with_the_strict_variable_off_goes_on(paths):
    done = run_cli(VERIFY_MATH, *paths, CI="true", **{STRICT_ENV: "0"})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["correct"] is True and "Warning: plugin 'ghost'" in done.stderr


def test_blocking_the_broken_plugins_makes_a_strict_run_clean(paths):
    blocked = ",".join(name for name, _ in BROKEN.values())
    done = run_cli(VERIFY_MATH, *paths, CI="true", **{BLOCK_ENV: blocked})
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""


def test_asking_for_a_name_a_broken_plugin_may_provide_says_it_failed_to_load(paths):
    done = run_cli(["verify", "halfway", "-r", "x", "x"], *paths)
    assert done.returncode == 1
    [error] = [line for line in done.stderr.splitlines() if line.startswith("Error: ")]
    registered = "code, exact, hybrid, ifeval, judge, math, mcq, rubric, tool_call"
    assert error.startswith(f"Error: unknown verifier 'halfway'; registered verifiers: {registered}.")
    assert "A plugin that may provide it failed to load: plugin 'import-boom' (" in error
    assert "plugin 'half-done' (entry point 'half-done = rewardkit_hook_raises_plugin'" in error
