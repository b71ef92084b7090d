"""The functions the package root exports: look up verifiers, rewards and sandboxes by name."""

from __future__ import annotations

from rewardkit.plugins.manager import PluginHost, default_host
from rewardkit.sandbox.lookup import get_language, get_sandbox
from rewardkit.verifiers.lookup import get_verifier

__all__ = ["get_language", "get_sandbox", "get_verifier", "plugin_host"]


def plugin_host() -> PluginHost:
    """The process-wide plugin host (plugin manager plus registries)."""
    return default_host()
