"""Third-party plugins that fail to load, pip-installed for real (one distribution per way of breaking) and
found on sys.path: each is left out with a PluginWarning naming it, or is a PluginError in a strict run; a
built-in that fails is always an error."""

from __future__ import annotations

import warnings

import pytest
from plugin_dists import PLUGIN_ENV_VARS

import rewardkit as rk
from rewardkit.plugins.broken import strict_from_env
from rewardkit.plugins.manager import BUILTIN_PLUGINS, PluginHost
from rewardkit.plugins.naming import STRICT_ENV

BUILTIN_VERIFIERS = "rewardkit.verifiers.builtin"

# kind -> (plugin name, text its error must hold, a name it registered before failing or None)
EXPECTED = {
    "raises-on-import": (
        "import-boom",
        "loading 'rewardkit_raises_on_import_plugin' raised RuntimeError('cannot find my model weights')",
        None,
    ),
    "missing-attribute": (
        "ghost",
        "loading 'rewardkit_missing_attribute_plugin:no_such_plugin' raised AttributeError(",
        None,
    ),
    "hook-raises": (
        "half-done",
        "plugin 'half-done' failed in register_rewards: RuntimeError('reward table missing')",
        ("verifiers", "halfway"),
    ),
    "name-clash": (
        "clasher",
        f"duplicate verifier name 'mcq': registered by plugin {BUILTIN_VERIFIERS!r} and by plugin 'clasher'",
        ("rewards", "clash_only"),
    ),
}


@pytest.fixture
def installed(monkeypatch, broken_targets):
    """Put the named kinds' --target folders on sys.path (entry points are read from it), no plugin env vars."""
    for var in PLUGIN_ENV_VARS:
        monkeypatch.delenv(var, raising=False)

    def install(*kinds: str) -> None:
        for kind in kinds:
            monkeypatch.syspath_prepend(str(broken_targets[kind]))

    return install


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_a_broken_plugin_is_left_out_with_a_warning_naming_it(installed, kind):
    name, error, registered = EXPECTED[kind]
    installed(kind)
    host = PluginHost(strict=False)
    with pytest.warns(rk.PluginWarning) as caught:
        registries = host.registries
    assert "math_accuracy" in registries.rewards and registries.verifiers.owner("mcq") == BUILTIN_VERIFIERS
    [broken] = host.broken
    assert broken.info.name == name and broken.info.distribution == f"rewardkit-{kind}"
    assert error in str(broken.error)
    if registered is not None:  # what it registered before it failed is taken back out
        kind_registry, registered_name = registered
        assert registered_name not in getattr(registries, kind_registry)
    [warning] = [str(w.message) for w in caught]
    assert warning.startswith(f"plugin {name!r} (entry point '{name} = rewardkit_")
    assert f"distribution 'rewardkit-{kind}' 0.3) failed to load: " in warning and error in warning
    assert f"set {STRICT_ENV}=1 (or CI=true) to make this an error" in warning
    assert f"REWARDKIT_BLOCK_PLUGINS={name} to stop loading it" in warning
    row = next(r for r in host.describe() if r["name"] == name)
    assert row["broken"] is True and error in row["error"] and row["distribution"] == f"rewardkit-{kind}"
    assert not any(r["broken"] for r in host.describe() if r["name"] != name)


def test_the_warning_comes_once_per_host(installed):
    installed("raises-on-import")
    host = PluginHost(strict=False)
    with pytest.warns(rk.PluginWarning):
        host.registries  # noqa: B018
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        host.registries  # noqa: B018
        host.describe()


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_a_strict_host_raises_a_plugin_error_naming_the_plugin_and_its_error(installed, kind):
    name, error, _ = EXPECTED[kind]
    installed(kind)
    with pytest.raises(rk.PluginError) as caught:
        PluginHost(strict=True).registries  # noqa: B018
    message = str(caught.value)
    assert message.startswith(f"plugin {name!r} (entry point '{name} = ") and error in message
    assert f"{STRICT_ENV}=1 or CI=true make a broken plugin an error" in message
    assert caught.value.__cause__ is not None


@pytest.mark.parametrize(
    ("env", "strict"),
    [
        ({}, False),
        ({"CI": "true"}, True),
        ({"CI": "1"}, True),
        ({"CI": "false"}, False),
        ({STRICT_ENV: "1"}, True),
        ({STRICT_ENV: "yes", "CI": "false"}, True),
        ({STRICT_ENV: "0", "CI": "true"}, False),
        ({STRICT_ENV: " ", "CI": "true"}, True),
    ],
)
def test_strictness_comes_from_the_strict_variable_then_ci(env, strict):
    assert strict_from_env(env) is strict


def test_a_host_built_from_the_environment_is_strict_under_ci(installed, monkeypatch):
    installed("raises-on-import")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(rk.PluginError, match="plugin 'import-boom' .* failed to load"):
        PluginHost.from_env().registries  # noqa: B018
    monkeypatch.setenv(STRICT_ENV, "0")
    with pytest.warns(rk.PluginWarning, match="import-boom"):
        assert "math_accuracy" in PluginHost.from_env().registries.rewards


def test_asking_for_a_name_nothing_registered_names_the_broken_plugins(installed):
    installed("hook-raises", "raises-on-import")
    host = PluginHost(strict=False)
    with pytest.warns(rk.PluginWarning):
        registries = host.registries
    with pytest.raises(rk.ConfigError) as caught:
        registries.verifiers.create("halfway")
    message = str(caught.value)
    assert message.startswith("unknown verifier 'halfway'; registered verifiers: ")
    assert ". A plugin that may provide it failed to load: plugin 'import-boom' (" in message
    assert "; plugin 'half-done' (entry point " in message and "RuntimeError('reward table missing')" in message
    assert message.endswith("(`rewardkit plugins` lists it)")
    with pytest.raises(rk.ConfigError, match="unknown reward 'my_reward'.*may provide it failed to load: plugin"):
        registries.rewards.create("my_reward")


def test_a_plugin_registered_later_rebuilds_without_the_broken_one(installed):
    installed("name-clash")
    host = PluginHost(strict=False)
    with pytest.warns(rk.PluginWarning):
        host.registries  # noqa: B018

    class Later:
        @rk.hookimpl
        def register_rewards(self, register):
            register("later_reward", lambda prompts, completions, **kw: [1.0] * len(completions))

    host.register(Later(), name="later")
    assert "later_reward" in host.registries.rewards and "clash_only" not in host.registries.rewards
    assert [b.info.name for b in host.broken] == ["clasher"]


def test_a_builtin_that_fails_to_import_is_an_error_even_when_lenient(installed):
    host = PluginHost(load_entry_points=False, strict=False, builtins=(*BUILTIN_PLUGINS, "rewardkit_no_such_builtin"))
    with pytest.raises(rk.PluginError, match="built-in plugin 'rewardkit_no_such_builtin' failed to import: Module"):
        host.registries  # noqa: B018


def test_a_builtin_whose_hook_raises_is_an_error_even_when_lenient(installed, monkeypatch, tmp_path):
    (tmp_path / "rewardkit_failing_builtin.py").write_text(
        "import rewardkit as rk\n\n@rk.hookimpl\ndef register_rewards(register):\n    raise KeyError('table')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    host = PluginHost(load_entry_points=False, strict=False, builtins=(*BUILTIN_PLUGINS, "rewardkit_failing_builtin"))
    with pytest.raises(
        rk.PluginError, match=r"plugin 'rewardkit_failing_builtin' failed in register_rewards: KeyError"
    ):
        host.registries  # noqa: B018
