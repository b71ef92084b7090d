"""Run the kernel-state hostile programs (kernel_state_programs.py) inside the disposable boundary."""

from __future__ import annotations

import os

import pytest

from boundary import REFUSAL, import_bare, pytest_inside, unavailable_reason

EXPECTED = 14  # the tests of kernel_state_programs.py (x86_64; fewer pass elsewhere, the rest skip)


def test_the_kernel_state_programs_refuse_to_run_bare() -> None:
    done = import_bare("kernel_state_programs")
    assert done.returncode != 0
    assert REFUSAL in done.stderr


@pytest.mark.hostile
@pytest.mark.slow
def test_kernel_state_programs_inside_the_boundary(ci_require) -> None:
    ci_require(unavailable_reason() is None, unavailable_reason() or "")
    done, report = pytest_inside("kernel_state_programs.py")
    assert done.returncode == 0, report
    expected = EXPECTED if os.uname().machine == "x86_64" else EXPECTED - 3
    assert f"{expected} passed" in done.stdout, report
