"""Run the cross-run channel programs (cross_run_programs.py) inside the disposable boundary."""

from __future__ import annotations

import pytest

from boundary import REFUSAL, import_bare, pytest_inside, unavailable_reason

EXPECTED = 8  # bubblewrap and unshare, each with the zygote and fork-exec; two writers


def test_the_cross_run_programs_refuse_to_run_bare() -> None:
    done = import_bare("cross_run_programs")
    assert done.returncode != 0
    assert REFUSAL in done.stderr


@pytest.mark.hostile
@pytest.mark.slow
def test_cross_run_channels_inside_the_boundary(ci_require) -> None:
    ci_require(unavailable_reason() is None, unavailable_reason() or "")
    done, report = pytest_inside("cross_run_programs.py")
    assert done.returncode == 0, report
    assert f"{EXPECTED} passed" in done.stdout, report
