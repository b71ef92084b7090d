"""``rk.get_sandbox``: a new sandbox backend of a registered kind."""

from __future__ import annotations

from typing import Any

from rewardkit.plugins.manager import default_host
from rewardkit.sandbox.base import Sandbox


def get_sandbox(name: str, **options: Any) -> Sandbox:
    """A new sandbox backend of a registered kind (``"local"``, ``"docker"``, ...)."""
    sandbox: Sandbox = default_host().registries.sandboxes.create(name, options)
    return sandbox
