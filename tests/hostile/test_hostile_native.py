"""Run the native hostile programs (native_programs.py) inside the disposable boundary, on both backends."""

from __future__ import annotations

import pytest

from boundary import REFUSAL, import_bare, pytest_inside, unavailable_reason
from native_cases import CASES
from rk_testing import docker_problem


def test_the_native_suite_covers_every_kind_of_attack() -> None:
    names = {c.name for c in CASES}
    assert len(names) == len(CASES) >= 15
    for kind in ("raw_syscalls", "ptrace", "fork_bomb", "memory_bomb", "write_outside", "daemon", "state_left"):
        assert any(kind in name for name in names), kind


def test_the_native_programs_refuse_to_run_bare() -> None:
    done = import_bare("native_programs")
    assert done.returncode != 0
    assert REFUSAL in done.stderr


@pytest.mark.hostile
@pytest.mark.slow
def test_native_programs_inside_the_boundary(ci_require) -> None:
    ci_require(unavailable_reason() is None, unavailable_reason() or "")
    done, report = pytest_inside("native_programs.py")
    assert done.returncode == 0, report
    backends = 3 if docker_problem() is None else 2  # bubblewrap, unshare and docker (a skip where it is absent)
    assert f"{backends * len(CASES) + 1} passed" in done.stdout, report
