"""Runs ONLY inside the boundary (see test_hostile_cross_run.py): on every path of the local backend, a run that
leaves every kind of state a sandbox could share between runs, or leaves none, then a run on the same zygote (or
the next fork-exec run) that reports all it can see of it. The reader must see the same world either way."""

from __future__ import annotations

import pytest

from boundary import inside_boundary
from cross_run_cases import READER, READER_REFERENCE, REFERENCE, WRITERS, seen_by_reader, writer

_why_not = inside_boundary()
if _why_not is not None:
    raise RuntimeError(f"refusing to run hostile programs outside the disposable boundary: {_why_not}")

import rewardkit as rk

NET_SETTINGS = {"Ip:Forwarding", "Ip:DefaultTTL", "Tcp:RtoAlgorithm", "Tcp:RtoMin", "Tcp:RtoMax", "Tcp:MaxConn"}
PATHS = [("bwrap", True), ("bwrap", False), ("unshare", True), ("unshare", False)]


@pytest.mark.parametrize("kind", WRITERS)
@pytest.mark.parametrize(
    ("isolation", "zygote"), PATHS, ids=[f"{i}-{'zygote' if z else 'fork-exec'}" for i, z in PATHS]
)
def test_nothing_a_run_leaves_reaches_the_next_run(isolation: str, zygote: bool, kind: str) -> None:
    options = {"isolation": isolation, "zygote": zygote}
    with rk.get_verifier("code", sandbox="local", sandbox_options=options, wall_time=8, workers=1) as verifier:
        seen = {}
        for signal in (0, 1, 0, 1):
            wrote = verifier.verify(writer(signal, kind), REFERENCE)
            assert (wrote.score, wrote.status) == (1.0, "ok"), wrote
            read = verifier.verify(READER, READER_REFERENCE)
            assert read.correct, read
            seen.setdefault(signal, []).append(seen_by_reader(read.details["stderr_tail"]))
            if zygote:
                assert len(verifier.sandbox._zygotes.idle()) == 1  # one zygote served every run
        assert seen[0][0] == seen[0][1] == seen[1][0] == seen[1][1], seen
        assert seen[1][0]["files /tmp"] == [] and seen[1][0]["sysvipc"] == {"msg": 0, "sem": 0, "shm": 0}
        assert set(seen[1][0]["net counts"]) <= NET_SETTINGS, seen[1][0]["net counts"]
