"""Run the attacks on the local sandbox's warm zygote (zygote_programs.py) inside the disposable boundary."""

from __future__ import annotations

import os

import pytest

from boundary import REFUSAL, import_bare, pytest_inside, unavailable_reason

EXPECTED = 6  # the tests of zygote_programs.py


def test_the_zygote_attacks_refuse_to_run_bare() -> None:
    done = import_bare("zygote_programs")
    assert done.returncode != 0
    assert REFUSAL in done.stderr


@pytest.mark.hostile
@pytest.mark.slow
def test_zygote_attacks_inside_the_boundary(ci_require) -> None:
    ci_require(unavailable_reason() is None, unavailable_reason() or "")
    ci_require(os.geteuid() == 0, "the warm zygote needs root")
    done, report = pytest_inside("zygote_programs.py")
    assert done.returncode == 0, report
    assert f"{EXPECTED} passed" in done.stdout, report
