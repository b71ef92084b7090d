"""The reward-service tests need the serve extra (FastAPI, uvicorn, httpx): left out without it (the run's
header says so), a failure in CI."""

from __future__ import annotations

import importlib.util

import pytest

from rk_testing import IN_CI

MISSING = [m for m in ("fastapi", "uvicorn", "httpx") if importlib.util.find_spec(m) is None]
if MISSING and not IN_CI:
    collect_ignore_glob = ["test_*.py"]


def pytest_report_header(config: pytest.Config) -> str | None:
    if MISSING:
        return f"tests/serve left out: the serve extra is missing ({', '.join(MISSING)}): pip install -e '.[serve]'"
    return None


@pytest.fixture
def serve_plugin(rewardkit_register):
    from serve_helpers import ServeTestPlugin

    rewardkit_register(ServeTestPlugin(), name="rewardkit-serve-tests")
