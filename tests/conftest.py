"""Shared test helpers (tests/rk_testing.py): a missing part is a skip locally and a failure in CI."""

from __future__ import annotations

import pytest

from rk_testing import require


@pytest.fixture
def ci_require():
    return require
