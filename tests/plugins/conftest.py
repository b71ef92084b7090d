"""Fixtures for the plugin tests: an isolated plugin host and real plugin distributions installed with pip."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from plugin_dists import BROKEN_KINDS, BROKEN_PLUGIN, DEMO_PLUGIN, PLUGIN_ENV_VARS, pip_install_plugin, require

from rewardkit.plugins.manager import PluginHost


def _require_pip() -> None:
    pip = subprocess.run([sys.executable, "-m", "pip", "--version"], check=False, capture_output=True)
    require(pip.returncode == 0, "pip is not available in this interpreter")
    try:
        import setuptools  # noqa: F401
    except ImportError:
        require(False, "setuptools is needed to build the test plugin offline")


@pytest.fixture(scope="session")
def plugin_targets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Real distributions, each pip-installed into its own --target folder: a working plugin, one with a
    misspelled hook, and a second distribution whose entry point has the working plugin's name."""
    _require_pip()
    root = tmp_path_factory.mktemp("plugin-dists")
    targets = {name: root / f"site-{name}" for name in ("demo", "broken", "twin")}
    pip_install_plugin(
        root / "src-demo",
        targets["demo"],
        "rewardkit-demo-plugin",
        "1.2.3",
        "demo",
        "rewardkit_demo_plugin",
        DEMO_PLUGIN,
    )
    pip_install_plugin(
        root / "src-broken",
        targets["broken"],
        "rewardkit-broken-plugin",
        "0.0.1",
        "broken",
        "rewardkit_broken_plugin",
        BROKEN_PLUGIN,
    )
    pip_install_plugin(
        root / "src-twin", targets["twin"], "rewardkit-demo-twin", "2.0", "demo", "rewardkit_demo_twin", DEMO_PLUGIN
    )
    return targets


@pytest.fixture(scope="session")
def broken_targets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One broken plugin distribution per kind in ``BROKEN_KINDS``, each in its own --target folder."""
    _require_pip()
    root = tmp_path_factory.mktemp("broken-dists")
    targets = {}
    for kind, (entry_name, code, attribute) in BROKEN_KINDS.items():
        module = "rewardkit_" + kind.replace("-", "_") + "_plugin"
        targets[kind] = root / f"site-{kind}"
        pip_install_plugin(
            root / f"src-{kind}", targets[kind], f"rewardkit-{kind}", "0.3", entry_name, module, code, attribute
        )
    return targets


@pytest.fixture
def host(monkeypatch: pytest.MonkeyPatch) -> PluginHost:
    """A plugin host of its own (built-ins only, no plugin env vars), so tests never touch the global one."""
    for var in PLUGIN_ENV_VARS:
        monkeypatch.delenv(var, raising=False)
    return PluginHost(load_entry_points=False)
