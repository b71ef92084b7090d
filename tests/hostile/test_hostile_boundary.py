"""Run the hostile-code suite inside a disposable boundary (PID/net/mount namespaces + cgroup caps)."""

from __future__ import annotations

import os
import sys

import pytest

from boundary import inside_boundary, run_inside, unavailable_reason
from hostile_cases import CASES

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def _require_boundary(require) -> None:
    require(unavailable_reason() is None, unavailable_reason() or "")


def test_the_suite_has_at_least_25_hostile_programs() -> None:
    assert len(CASES) >= 25
    assert len({c.name for c in CASES}) == len(CASES)


def test_the_hostile_module_refuses_to_run_bare() -> None:
    assert inside_boundary() is not None
    env = {k: v for k, v in os.environ.items() if not k.startswith("RK_HOSTILE")}
    import subprocess

    done = subprocess.run(
        [sys.executable, "-c", "import hostile_programs"],
        cwd=HERE,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode != 0
    assert "refusing to run hostile programs outside the disposable boundary" in done.stderr


@pytest.mark.hostile
@pytest.mark.slow
def test_hostile_programs_inside_the_boundary(ci_require) -> None:
    _require_boundary(ci_require)
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "CI", "PYTHONPATH")}
    done = run_inside(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:randomly",
            os.path.join(HERE, "hostile_programs.py"),
            "-o",
            "addopts=",
            "--timeout=300",
        ],
        env=env,
        timeout=600,
        pids_max=512,
        memory_bytes=4 << 30,
        cwd=ROOT,
    )
    report = (done.stdout[-6000:] + "\n" + done.stderr[-3000:]).strip()
    assert done.returncode == 0, report
    assert f"{2 * (len(CASES) + 1)} passed" in done.stdout, report  # each with zygote=True and False


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
