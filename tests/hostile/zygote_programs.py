"""Attacks on the local sandbox's warm zygote, judged for real. Runs ONLY inside the boundary (see
test_zygote_hostile.py): these programs signal every pid they can, try ptrace and /proc/<pid>/mem on
every process they see, and kill their own supervisor.

Each attack runs while a good program is judged on another zygote of the same sandbox; the good one
must score full, the attack must earn nothing it did not compute, the zygotes must survive, and the
next run must score right.
"""

from __future__ import annotations

import os
import time

import pytest

from boundary import inside_boundary

_why_not = inside_boundary()
if _why_not is not None:
    raise RuntimeError(f"refusing to run hostile programs outside the disposable boundary: {_why_not}")

import rewardkit as rk

ISOLATIONS = ["bwrap", "unshare"]
SLOW_GOOD = "import time\ndef f():\n    time.sleep(1.5)\n    return 1\n"
REF = {"test": "def check(candidate):\n    assert candidate() == 1\n", "entry_point": "f"}
CLEAN_REF = {"test": "def check(candidate):\n    assert candidate() == []\n", "entry_point": "f"}

SIGNAL_EVERYTHING = """
import os, signal
for sig in (signal.SIGKILL, signal.SIGSTOP, signal.SIGTERM, signal.SIGINT):
    for target in (-1, 1, os.getppid()):  # not 0: that is its own process group
        try:
            os.kill(target, sig)
        except OSError:
            pass
for pid in range(1, 4096):
    if pid != os.getpid():
        for sig in (signal.SIGKILL, signal.SIGSTOP):
            try:
                os.kill(pid, sig)
            except OSError:
                pass
def f():
    return 1
"""

KILL_SUPERVISOR = """
import os, signal
for pid in (1, os.getppid()):
    for sig in (signal.SIGKILL, signal.SIGTERM, signal.SIGSEGV, signal.SIGSTOP):
        try:
            os.kill(pid, sig)
        except OSError:
            pass
def f():
    return 1
"""

TRACE_EVERYTHING = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
found = []
mine = os.getpid()
for entry in os.listdir("/proc"):
    if not entry.isdigit() or int(entry) == mine:
        continue
    pid = int(entry)
    if libc.ptrace(16, pid, 0, 0) == 0:  # PTRACE_ATTACH
        found.append(("ptrace", pid))
    if libc.ptrace(0x4206, pid, 0, 0) == 0:  # PTRACE_SEIZE
        found.append(("seize", pid))
    for name in ("mem", "environ"):
        try:
            with open(f"/proc/{pid}/{name}", "rb") as fh:
                if fh.read(64):
                    found.append((name, pid))
        except OSError:
            pass
seen = sorted(int(e) for e in os.listdir("/proc") if e.isdigit())
if len(seen) > 6:  # the supervisor and this process: a run sees nothing beyond its own
    found.append(("sees", seen[:20]))
for pid in range(1, 4096):
    if pid not in seen:
        try:
            os.kill(pid, 0)
            found.append(("unlisted", pid))
        except ProcessLookupError:
            pass
        except PermissionError:
            found.append(("unlisted", pid))
def f():
    return found
"""


def _verifier(isolation: str):
    return rk.get_verifier(
        "code",
        sandbox="local",
        sandbox_options={"isolation": isolation, "zygote": True},
        wall_time=6,
        workers=2,
    )


@pytest.mark.hostile
@pytest.mark.parametrize("isolation", ISOLATIONS)
@pytest.mark.parametrize("attack", [SIGNAL_EVERYTHING, KILL_SUPERVISOR], ids=["signal-everything", "kill-supervisor"])
def test_signals_reach_no_other_run_no_zygote_and_not_the_supervisor(isolation: str, attack: str) -> None:
    with _verifier(isolation) as verifier:
        verifier.verify_batch([SLOW_GOOD] * 2, [REF] * 2)  # two zygotes, warm
        zygotes = set(verifier.sandbox._zygotes.idle())
        assert len(zygotes) == 2
        verdicts = verifier.verify_batch([SLOW_GOOD, attack], [REF, REF])
        good, hostile = verdicts
        assert (good.score, good.correct, good.status) == (1.0, True, "ok"), good
        assert not hostile.is_infrastructure_failure, hostile
        assert hostile.correct, hostile  # its supervisor survived the attack and judged it
        assert set(verifier.sandbox._zygotes.idle()) == zygotes and all(z.alive() for z in zygotes)
        after = verifier.verify(SLOW_GOOD, REF)
        assert after.correct, after


@pytest.mark.hostile
@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_no_process_outside_the_run_can_be_traced_read_or_even_seen(isolation: str) -> None:
    with _verifier(isolation) as verifier:
        verdicts = verifier.verify_batch([SLOW_GOOD, TRACE_EVERYTHING], [REF, CLEAN_REF])
        assert verdicts[0].correct, verdicts[0]
        assert verdicts[1].correct, verdicts[1].details
        started = time.monotonic()
        assert verifier.verify(SLOW_GOOD, REF).correct
        assert time.monotonic() - started < 6
        assert all(z.alive() for z in verifier.sandbox._zygotes.idle())
        assert os.getpid() > 0
