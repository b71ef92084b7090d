"""Run the async-I/O signal programs (async_signal_programs.py) inside the disposable boundary."""

from __future__ import annotations

import pytest

from boundary import REFUSAL, import_bare, pytest_inside, unavailable_reason

EXPECTED = 9  # the tests of async_signal_programs.py


def test_the_async_signal_programs_refuse_to_run_bare() -> None:
    done = import_bare("async_signal_programs")
    assert done.returncode != 0
    assert REFUSAL in done.stderr


@pytest.mark.hostile
@pytest.mark.slow
def test_async_signal_programs_inside_the_boundary(ci_require) -> None:
    ci_require(unavailable_reason() is None, unavailable_reason() or "")
    done, report = pytest_inside("async_signal_programs.py")
    assert done.returncode == 0, report
    assert f"{EXPECTED} passed" in done.stdout, report
