"""Shared test helpers: a missing part is a skip on a user's machine and a failure in CI."""

from __future__ import annotations

import os

import pytest

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def require(condition: bool, reason: str) -> None:
    """Skip when ``condition`` is false, unless running in CI (CI=true), where it fails instead."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"required in CI but missing: {reason}")
    pytest.skip(reason)


@pytest.fixture
def ci_require():
    return require
