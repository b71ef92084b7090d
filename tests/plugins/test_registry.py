"""The plugin host in-process: built-ins, lookups, duplicates, misspelled hooks, block lists, run-time plugins."""

from __future__ import annotations

import os
import shutil
import types

import pytest

import rewardkit as rk
from rewardkit.plugins.manager import BUILTIN_PLUGINS, PluginHost
from rewardkit.plugins.naming import BLOCK_ENV
from rewardkit.verifiers.multiple_choice.verifier import MCQVerifier
from rk_testing import require


def test_builtins_register_through_the_hooks(host):
    registries = host.registries
    assert {"math", "mcq"} <= set(registries.verifiers.names())
    assert registries.verifiers.owner("mcq") == "rewardkit.verifiers.builtin"
    rows = {row["name"]: row for row in host.describe()}
    assert set(BUILTIN_PLUGINS) <= set(rows)
    verifiers_row = rows["rewardkit.verifiers.builtin"]
    assert verifiers_row["hooks"] == ["register_verifiers"]
    assert verifiers_row["source"] == "builtin"
    assert {"math", "mcq"} <= set(verifiers_row["registered"]["verifier"])


def test_get_verifier_returns_a_new_instance_with_params():
    first, second = rk.get_verifier("mcq"), rk.get_verifier("mcq", max_options=4)
    assert isinstance(first, MCQVerifier) and first is not second
    assert second.config.max_options == 4


@pytest.mark.parametrize(
    "lookup, kind, close",
    [
        (lambda: rk.get_verifier("mqc"), "verifier", "mcq"),
        (lambda: rk.get_reward("no_such_reward"), "reward", None),
        (lambda: rk.get_sandbox("no_such_sandbox"), "sandbox", None),
    ],
)
def test_unknown_names_list_what_is_registered(lookup, kind, close):
    with pytest.raises(rk.ConfigError) as info:
        lookup()
    message = str(info.value)
    plural = f"{kind}s" if kind != "sandbox" else "sandboxes"
    registry = getattr(rk.plugin_host().registries, plural)
    assert f"unknown {kind}" in message and f"registered {plural}:" in message and "sandboxs" not in message
    for name in registry.names():
        assert name in message
    if close:
        assert f"Did you mean {close!r}" in message


def test_bad_factory_params_name_what_is_accepted():
    with pytest.raises(rk.ConfigError, match="bad parameters for verifier 'mcq'.*accepts: .*max_options"):
        rk.get_verifier("mcq", max_option=4)


class DuplicateMCQ:
    @rk.hookimpl
    def register_verifiers(self, register):
        register("mcq", MCQVerifier)


def test_duplicate_names_error_naming_both_plugins(host):
    with pytest.raises(rk.PluginError) as info:
        host.register(DuplicateMCQ(), name="copycat")
    message = str(info.value)
    assert "duplicate verifier name 'mcq'" in message
    assert "'copycat'" in message and "'rewardkit.verifiers.builtin'" in message
    # the failed plugin is rolled back; the host still works
    assert host.pm.get_plugin("copycat") is None
    assert host.registries.verifiers.owner("mcq") == "rewardkit.verifiers.builtin"


def test_misspelled_hook_fails_loudly(host):
    plugin = types.ModuleType("typo_plugin")

    @rk.hookimpl
    def register_verifier(register):
        register("x", MCQVerifier)

    plugin.register_verifier = register_verifier
    with pytest.raises(
        rk.PluginError, match="plugin 'typo_plugin': unknown hook 'register_verifier'.*register_verifiers"
    ):
        host.register(plugin)
    assert host.pm.get_plugin("typo_plugin") is None
    assert "x" not in host.registries.verifiers


def test_invalid_registered_name_and_failing_hook_name_the_plugin(host):
    class EmptyName:
        @rk.hookimpl
        def register_rewards(self, register):
            register("", len)

    class Raising:
        @rk.hookimpl
        def register_combinators(self, register):
            raise RuntimeError("combinator table missing")

    with pytest.raises(rk.PluginError, match="'empty-name' registered a reward with an invalid name ''"):
        host.register(EmptyName(), name="empty-name")
    with pytest.raises(rk.PluginError, match="'raising' failed in register_combinators: RuntimeError"):
        host.register(Raising(), name="raising")


def test_block_env_var_drops_a_builtin(monkeypatch):
    monkeypatch.setenv(BLOCK_ENV, " rewardkit.verifiers.builtin , something-else ")
    host = PluginHost(load_entry_points=False)
    assert "rewardkit.verifiers.builtin" not in dict(host.pm.list_name_plugin())
    assert "mcq" not in host.registries.verifiers
    assert len(host.registries.rewards) > 0  # the other built-ins still load
    # with the built-in blocked, a plugin may take the name without a duplicate error
    host.register(DuplicateMCQ(), name="replacement")
    assert host.registries.verifiers.owner("mcq") == "replacement"


def test_explicit_block_list_overrides_env(monkeypatch):
    monkeypatch.setenv(BLOCK_ENV, "rewardkit.verifiers.builtin")
    host = PluginHost(load_entry_points=False, blocked=[])
    assert "mcq" in host.registries.verifiers


class PlainRewardPlugin:
    """A plugin that registers a plain TRL reward function (not a factory)."""

    @staticmethod
    def exclamations(prompts, completions, **kwargs):
        return [float(c.count("!")) for c in completions]

    @rk.hookimpl
    def register_rewards(self, register):
        register("exclamations", self.exclamations)


def test_get_reward_returns_a_plain_function_registered_by_a_plugin():
    host = rk.plugin_host()
    name = host.register(PlainRewardPlugin(), name="plain-reward-plugin")
    try:
        reward = rk.get_reward("exclamations")
        assert reward(["p", "p"], ["hi!", "wow!!"]) == [1.0, 2.0]
        row = next(r for r in host.describe() if r["name"] == name)
        assert row["registered"] == {"reward": ["exclamations"]}
        assert row["hooks"] == ["register_rewards"]
    finally:
        host.unregister(name=name)
    with pytest.raises(rk.ConfigError, match="unknown reward 'exclamations'"):
        rk.get_reward("exclamations")
    assert name not in {r["name"] for r in host.describe()}


def test_unregister_by_object_forgets_the_plugin(host):
    plugin = PlainRewardPlugin()
    name = host.register(plugin)
    assert name.startswith("plugin-") and "exclamations" in host.registries.rewards
    host.unregister(plugin)
    assert "exclamations" not in host.registries.rewards
    assert name not in {r["name"] for r in host.describe()}
    host.unregister(plugin)  # a second time is a no-op


class EchoSandboxPlugin:
    """Registers a sandbox factory and a shaper, the two registries the other tests leave out."""

    @rk.hookimpl
    def register_sandboxes(self, register):
        register("echo", lambda *, label="echo": types.SimpleNamespace(label=label))

    @rk.hookimpl
    def register_combinators(self, register):
        register("halve", lambda reward: lambda *a, **k: [r / 2 for r in reward(*a, **k)])


def test_sandbox_and_shaper_hooks_fill_their_registries(host):
    name = host.register(EchoSandboxPlugin(), name="echo-plugin")
    assert host.registries.sandboxes.owner("echo") == name
    assert host.registries.combinators.owner("halve") == name
    assert {"local", "docker"} <= set(host.registries.sandboxes.names())  # built-ins alongside
    rk_host = rk.plugin_host()
    rk_host.register(EchoSandboxPlugin(), name="echo-plugin")
    try:
        assert rk.get_sandbox("echo", label="x").label == "x"
        warm = rk.WarmProgram(("python3", "main.py"), {"main.py": b"pass\n"})
        assert rk.get_sandbox("echo", label="y", warm=warm).label == "y"  # offered only to a backend taking it
        with pytest.raises(rk.ConfigError, match="bad parameters for sandbox 'echo'.*accepts: label"):
            rk.get_sandbox("echo", lable="x")
    finally:
        rk_host.unregister(name="echo-plugin")


def test_plugin_without_any_marked_hook_fails_loudly(host):
    forgot_marker = types.ModuleType("forgot_marker")
    forgot_marker.register_rewards = lambda register: register("never", len)
    with pytest.raises(rk.PluginError, match="'forgot_marker' implements no rewardkit hook; register_rewards must be"):
        host.register(forgot_marker)
    with pytest.raises(rk.PluginError, match="'empty' implements no rewardkit hook$"):
        host.register(object(), name="empty")
    assert host.pm.get_plugin("forgot_marker") is None and "never" not in host.registries.rewards


class ShellLanguagePlugin:
    """Registers a language: POSIX sh, interpreted (no compile step), selected by a ```sh fence."""

    @rk.hookimpl
    def register_languages(self, register):
        register(
            "posix-sh",
            rk.Language(name="posix-sh", family="sh", source_file="main.sh", run=("sh", "{artifact}"), tags=("sh",)),
        )


def test_a_plugin_language_is_looked_up_by_name_and_tag_and_judged_by_the_code_verifier():
    require(shutil.which("bwrap") is not None or os.geteuid() == 0, "no isolation tool for the local sandbox")
    rk_host = rk.plugin_host()
    rk_host.register(ShellLanguagePlugin(), name="shell-language")
    try:
        assert rk.get_language("posix-sh") is rk.get_language("SH")
        with rk.get_verifier("code", sandbox="local") as verifier:
            tests = {"inputs": ["1 2\n", "5 5\n"], "outputs": ["3\n", "10\n"]}
            verdict = verifier.verify("```sh\nread a b\necho $((a + b))\n```", tests)
            assert (verdict.score, verdict.details["language"]) == (1.0, "posix-sh")
    finally:
        rk_host.unregister(name="shell-language")
    with pytest.raises(rk.ConfigError, match=r"unknown language 'posix-sh'; registered languages: c, cpp17"):
        rk.get_language("posix-sh")
