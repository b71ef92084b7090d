"""The functions the package root exports: look up verifiers, rewards and sandboxes by name."""

from __future__ import annotations

from typing import Any

from rewardkit import _factories
from rewardkit.plugins.manager import PluginHost, default_host
from rewardkit.sandbox.base import Sandbox
from rewardkit.verifiers.base import Verifier


def get_verifier(name: str, **params: Any) -> Verifier:
    """A new verifier instance of a registered kind (``"math"``, ``"mcq"``, ``"code"``, ...)."""
    return _factories.create(default_host().registries.verifiers, name, params)


def get_sandbox(name: str, **options: Any) -> Sandbox:
    """A new sandbox backend of a registered kind (``"local"``, ``"docker"``, ...)."""
    return _factories.create(default_host().registries.sandboxes, name, options)


def plugin_host() -> PluginHost:
    """The process-wide plugin host (plugin manager plus registries)."""
    return default_host()
