"""Run the deep-tree programs (deep_tree_programs.py) inside the disposable boundary."""

from __future__ import annotations

import pytest

from boundary import REFUSAL, import_bare, pytest_inside, unavailable_reason

EXPECTED = 7  # the tests of deep_tree_programs.py


def test_the_deep_tree_programs_refuse_to_run_bare() -> None:
    done = import_bare("deep_tree_programs")
    assert done.returncode != 0
    assert REFUSAL in done.stderr


@pytest.mark.hostile
@pytest.mark.slow
def test_deep_tree_programs_inside_the_boundary(ci_require) -> None:
    ci_require(unavailable_reason() is None, unavailable_reason() or "")
    done, report = pytest_inside("deep_tree_programs.py")
    assert done.returncode == 0, report
    assert f"{EXPECTED} passed" in done.stdout, report
