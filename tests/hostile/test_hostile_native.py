"""Run the native hostile programs (native_programs.py) inside the disposable boundary, on both backends."""

from __future__ import annotations

import shutil

import pytest

from boundary import REFUSAL, import_bare, pytest_inside, unavailable_reason
from native_cases import CASES, JUDGED
from rewardkit.sandbox.docker.image_languages import LANGUAGES_IMAGE
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
    ci_require(shutil.which("gcc") is not None, "the native hostile suite compiles its programs with gcc")
    done, report = pytest_inside("native_programs.py")
    assert done.returncode == 0, report
    # bubblewrap, unshare and docker (a skip where it is absent)
    backends = 3 if docker_problem(LANGUAGES_IMAGE) is None else 2
    assert f"{backends * (len(CASES) + len(JUDGED)) + 1} passed" in done.stdout, report
