"""Run the attacks on the local sandbox's warm zygote (zygote_programs.py) inside the disposable boundary."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from boundary import run_inside, unavailable_reason

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
EXPECTED = 6  # the tests of zygote_programs.py


def test_the_zygote_attacks_refuse_to_run_bare() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RK_HOSTILE")}
    done = subprocess.run(
        [sys.executable, "-c", "import zygote_programs"],
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
def test_zygote_attacks_inside_the_boundary(ci_require) -> None:
    ci_require(unavailable_reason() is None, unavailable_reason() or "")
    ci_require(os.geteuid() == 0, "the warm zygote needs root")
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
            os.path.join(HERE, "zygote_programs.py"),
            "-o",
            "addopts=-ra",
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
    assert f"{EXPECTED} passed" in done.stdout, report
