"""``rk.get_verifier``: a new verifier of a registered kind."""

from __future__ import annotations

from typing import Any

from rewardkit.plugins.manager import default_host
from rewardkit.verifiers.base import Verifier


def get_verifier(name: str, **params: Any) -> Verifier:
    """A new verifier instance of a registered kind (``"math"``, ``"mcq"``, ``"code"``, ...)."""
    verifier: Verifier = default_host().registries.verifiers.create(name, params)
    return verifier
