"""Helpers shared by the test suite: a missing part is a skip on a user's machine and a failure in CI."""

from __future__ import annotations

import os

import pytest

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
SANDBOX_IMAGE = "rewardkit-sandbox:latest"


def require(condition: bool, reason: str) -> None:
    """Skip when ``condition`` is false, unless running in CI (CI=true), where it fails instead."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"required in CI but missing: {reason}")
    pytest.skip(reason)


def docker_problem(image: str = SANDBOX_IMAGE) -> str | None:
    """Why the docker tests cannot run here, or None when the engine and the sandbox image are both present."""
    try:
        import docker

        client = docker.from_env(timeout=10)
        client.ping()
    except Exception as exc:  # noqa: BLE001 - any failure to reach the engine means the same thing here
        return f"no reachable Docker engine ({exc})"
    try:
        client.images.get(image)
    except Exception:  # noqa: BLE001
        return f"image {image} is missing: build it with `make sandbox-image`"
    return None
