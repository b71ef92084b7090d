"""Shared test helpers (tests/rk_testing.py): a missing part is a skip locally and a failure in CI."""

from __future__ import annotations

from pathlib import Path

import pytest

from rk_testing import require

HOSTILE = Path(__file__).parent / "hostile"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Everything under tests/hostile carries the ``hostile`` marker (`make test-fast` deselects it)."""
    for item in items:
        if HOSTILE in item.path.parents:
            item.add_marker(pytest.mark.hostile)


@pytest.fixture
def ci_require():
    return require
