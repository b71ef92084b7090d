"""The hostile programs, judged for real. Runs ONLY inside the boundary (see test_hostile_boundary.py).

Not named test_*.py so that a plain ``pytest`` never collects it; run directly outside the boundary
it refuses at import time.
"""

from __future__ import annotations

import os
import shutil
import time

import pytest

from boundary import inside_boundary
from hostile_cases import CASES as BASE_CASES
from hostile_cases import GOOD, GOOD_IO, IO_REF, REF, SECRET, SECRET_ENV, Hostile
from trust_cases import TRUST_CASES

CASES = BASE_CASES + TRUST_CASES
_why_not = inside_boundary()
if _why_not is not None:
    raise RuntimeError(f"refusing to run hostile programs outside the disposable boundary: {_why_not}")

import rewardkit as rk

WALL = 3.0
SETTINGS = {
    "wall_time": WALL,
    "memory_bytes": 256 << 20,
    "max_processes": 16,
    "max_output_bytes": 256 << 10,
    "max_scratch_bytes": 16 << 20,
    "max_file_bytes": 8 << 20,
}


def _processes() -> dict[int, str]:
    found = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as fh:
                    found[int(entry)] = fh.read().replace(b"\0", b" ").decode("latin-1")[:200]
            except OSError:
                pass
    return found


def _new_processes(before: dict[int, str], settle: float = 5.0, zygotes=None) -> dict[int, str]:
    """Processes started since ``before`` and still alive, but the sandbox's warm zygotes (long-lived)."""
    end = time.monotonic() + settle
    while True:
        kept = zygotes.zygote_pids() if zygotes is not None else set()
        extra = {
            pid: cmd
            for pid, cmd in _processes().items()
            if pid not in before and pid != os.getpid() and pid not in kept
        }
        extra = {pid: cmd for pid, cmd in extra.items() if cmd}  # zombies have an empty cmdline
        if not extra or time.monotonic() > end:
            return extra
        time.sleep(0.05)


PATHS = [("bwrap", True), ("bwrap", False), ("unshare", True), ("unshare", False)]


@pytest.fixture(scope="module", params=PATHS, ids=[f"{i}-{'zygote' if z else 'fork-exec'}" for i, z in PATHS])
def verifier(request):
    """Every path of the local backend: bubblewrap and unshare, each with the warm zygote and fork-exec."""
    isolation, zygote = request.param
    os.environ[SECRET_ENV] = SECRET
    options = {"isolation": isolation, "zygote": zygote}
    with rk.get_verifier("code", sandbox="local", sandbox_options=options, **SETTINGS) as v:
        assert v.sandbox.zygote is zygote and v.sandbox.isolation == isolation
        yield v


def _disk_free() -> dict[str, int]:
    return {p: shutil.disk_usage(p).free for p in ("/", "/tmp", "/dev/shm") if os.path.exists(p)}


@pytest.mark.hostile
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_program_earns_nothing_and_leaves_nothing(case: Hostile, verifier, listener) -> None:
    port, hits = listener
    program = case.program.replace("PORT", str(port))
    before, disk_before = _processes(), _disk_free()
    started = time.monotonic()
    verdict = verifier.verify(f"```python\n{program}```", case.reference)
    elapsed = time.monotonic() - started

    assert verdict.score <= case.earned + 1e-9, verdict
    if case.earned:
        assert verdict.score == pytest.approx(case.earned), verdict
    assert not verdict.correct or case.earned == 1.0
    if case.statuses:
        assert verdict.status in case.statuses, verdict
    assert not verdict.is_infrastructure_failure, verdict
    assert elapsed < WALL + 5.0, f"{case.name} took {elapsed:.1f}s"  # the kill comes at WALL; slack for load
    assert _new_processes(before, zygotes=verifier.sandbox) == {}, "processes left behind"
    assert SECRET not in repr(verdict.to_dict()), "the secret leaked into the verdict"
    assert hits == [], "the program reached the network"
    for path, free in _disk_free().items():
        assert free > disk_before[path] - (32 << 20), f"{path} lost space"

    reference, good = (IO_REF, GOOD_IO) if case.reference is IO_REF else (REF, GOOD)
    after = verifier.verify(good, reference)
    assert (after.score, after.correct, after.status) == (1.0, True, "ok"), after


@pytest.mark.hostile
def test_whole_suite_in_one_parallel_batch_then_a_good_solution(verifier, listener) -> None:
    port, hits = listener
    before = _processes()
    programs = [c.program.replace("PORT", str(port)) for c in CASES]
    started = time.monotonic()
    verdicts = verifier.verify_batch(programs, [c.reference for c in CASES])
    elapsed = time.monotonic() - started
    for case, verdict in zip(CASES, verdicts, strict=False):
        assert verdict.score <= case.earned + 1e-9, (case.name, verdict)
        assert not verdict.is_infrastructure_failure, (case.name, verdict)
    assert elapsed < len(CASES) * (WALL + 1.0)
    assert _new_processes(before, zygotes=verifier.sandbox) == {}
    assert hits == []
    good = verifier.verify_batch([GOOD] * 8, [REF] * 8)
    assert [v.score for v in good] == [1.0] * 8
