"""Real entry-point discovery: tiny plugin distributions pip-installed into a --target folder, used from a
fresh interpreter with that folder on PYTHONPATH and no import by hand."""

from __future__ import annotations

import json

from plugin_dists import plugins_json, run_python

from rewardkit.plugins.naming import ALLOW_ENV, BLOCK_ENV, LOAD_ENTRY_POINTS_ENV

USE_DEMO = """
import json, sys
import rewardkit as rk
with rk.get_verifier("exact", case_sensitive=True) as v:
    hit, miss = v.verify(" Paris ", "Paris"), v.verify("paris", "Paris")
reward = rk.get_reward("shortness")
print(json.dumps({
    "hit": hit.correct, "miss": miss.correct, "type": type(v).__module__,
    "reward": reward(["p", "p"], ["a", "abc"]),
    "loaded": "rewardkit_demo_plugin" in sys.modules,
}))
"""


def test_installed_plugin_is_found_without_an_import(plugin_targets):
    done = run_python(USE_DEMO, plugin_targets["demo"])
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result == {
        "hit": True,
        "miss": False,
        "type": "rewardkit_demo_plugin",
        "reward": [0.5, 0.25],
        "loaded": True,
    }


def test_plugins_command_lists_the_installed_plugin(plugin_targets):
    rows = {row["name"]: row for row in plugins_json(plugin_targets["demo"])}
    demo = rows["demo"]
    assert demo["source"] == "entry point"
    assert demo["distribution"] == "rewardkit-demo-plugin"
    assert demo["version"] == "1.2.3"
    assert demo["hooks"] == ["register_rewards", "register_verifiers"]
    assert demo["registered"] == {"verifier": ["exact"], "reward": ["shortness"]}
    assert rows["rewardkit.verifiers.builtin"]["source"] == "builtin"


def test_block_and_allow_lists_select_entry_point_plugins(plugin_targets):
    demo = plugin_targets["demo"]
    assert "demo" not in {r["name"] for r in plugins_json(demo, **{BLOCK_ENV: "demo"})}
    assert "demo" not in {r["name"] for r in plugins_json(demo, **{ALLOW_ENV: "someone-else"})}
    assert "demo" not in {r["name"] for r in plugins_json(demo, **{LOAD_ENTRY_POINTS_ENV: "0"})}
    allowed = {r["name"] for r in plugins_json(demo, **{ALLOW_ENV: "demo"})}
    assert "demo" in allowed and "rewardkit.verifiers.builtin" in allowed  # built-ins always load


def test_blocked_plugin_name_is_unknown_with_a_clear_error(plugin_targets):
    code = "import rewardkit as rk\ntry:\n    rk.get_verifier('exact')\nexcept rk.ConfigError as e:\n    print(e)"
    done = run_python(code, plugin_targets["demo"], env={BLOCK_ENV: "demo"})
    assert done.returncode == 0, done.stderr
    assert "unknown verifier 'exact'; registered verifiers: " in done.stdout
    assert "mcq" in done.stdout


def test_installed_plugin_with_a_misspelled_hook_is_left_out_loudly(plugin_targets):
    both = (plugin_targets["demo"], plugin_targets["broken"])
    done = run_python(USE_DEMO, *both)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["hit"] is True
    assert "PluginWarning: plugin 'broken' (entry point 'broken = rewardkit_broken_plugin'" in done.stderr
    assert "plugin 'broken': unknown hook 'register_verifier'" in done.stderr
    # a strict run (CI=true) refuses it
    done = run_python("import rewardkit as rk; rk.get_verifier('mcq')", *both, env={"CI": "true"})
    assert done.returncode != 0
    assert "PluginError" in done.stderr
    assert "plugin 'broken': unknown hook 'register_verifier'" in done.stderr
    assert (
        "rewardkit hooks are: register_combinators, register_languages, register_rewards, register_sandboxes"
        in done.stderr
    )
    # blocking the broken plugin by its entry-point name brings everything else back, without the warning
    done = run_python(USE_DEMO, *both, env={BLOCK_ENV: "broken", "CI": "true"})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["hit"] is True and "broken" not in done.stderr


def test_two_distributions_with_the_same_plugin_name_leave_one_out(plugin_targets):
    both = (plugin_targets["demo"], plugin_targets["twin"])
    done = run_python(USE_DEMO, *both)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["hit"] is True
    assert "two plugins are named 'demo'" in done.stderr
    assert "rewardkit-demo-plugin" in done.stderr and "rewardkit-demo-twin" in done.stderr
    done = run_python("import rewardkit as rk; rk.get_verifier('mcq')", *both, env={"REWARDKIT_STRICT_PLUGINS": "1"})
    assert done.returncode != 0
    assert "two plugins are named 'demo'" in done.stderr
    assert "rewardkit-demo-plugin" in done.stderr and "rewardkit-demo-twin" in done.stderr
