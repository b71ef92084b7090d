"""Run the hostile-code suite inside a disposable boundary (PID/net/mount namespaces + cgroup caps)."""

from __future__ import annotations

import os

import pytest

from boundary import REFUSAL, import_bare, inside_boundary, pytest_inside, run_inside, unavailable_reason
from hostile_cases import CASES
from trust_cases import TRUST_CASES


def _require_boundary(require) -> None:
    require(unavailable_reason() is None, unavailable_reason() or "")


def test_the_suite_has_at_least_25_hostile_programs() -> None:
    assert len(CASES) >= 25
    assert len({c.name for c in CASES}) == len(CASES)


def test_the_hostile_module_refuses_to_run_bare() -> None:
    assert inside_boundary() is not None
    done = import_bare("hostile_programs")
    assert done.returncode != 0
    assert REFUSAL in done.stderr


@pytest.mark.hostile
@pytest.mark.slow
@pytest.mark.timeout(600)  # the whole hostile suite, in a pytest of its own: 224 s on a loaded 2-core machine
def test_hostile_programs_inside_the_boundary(ci_require) -> None:
    _require_boundary(ci_require)
    done, report = pytest_inside("hostile_programs.py")
    assert done.returncode == 0, report
    # each on four paths: bubblewrap and unshare, each with the zygote and fork-exec
    assert f"{4 * (len(CASES) + len(TRUST_CASES) + 1)} passed" in done.stdout, report


def test_the_boundary_caps_processes_and_leaves_none(ci_require) -> None:
    _require_boundary(ci_require)
    script = "for i in $(seq 60); do sleep 61.4321 & done; wait"
    done = run_inside(["sh", "-c", script], env={"PATH": os.environ["PATH"]}, timeout=60, pids_max=20)
    assert done.returncode != 0 and "fork" in done.stderr.lower(), done  # pids.max refused the 20th process
    leftovers = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                if b"61.4321" in fh.read():
                    leftovers.append(pid)
        except OSError:
            pass
    assert leftovers == []
