"""Test outcomes of the code harness's supervisor (plain stdlib, runs inside the sandbox).

``outcomes`` only ever holds final results: a pass of a site that can run again (``repeat``, see
``code_instrument``) waits in ``pending`` until the statement that repeats it has finished, so an
interrupted run (deadline, crash, an exception out of a loop) can never leave a half-checked loop
credited: whatever is still pending when the run ends is not a pass.
"""

from __future__ import annotations

import time

try:
    from code_procs import Deadline
except ImportError:  # imported from the installed package (on the host, by tests)
    from rewardkit.verifiers.code_tests.harness.code_procs import Deadline

UNFINISHED = "the statement that repeats this test did not finish"
CRASHED = "the program crashed or ran out of time during this test"


def describe(exc: BaseException, size: int = 300) -> str:
    """``Type: message``, never raising (a message may hold a value too big to print)."""
    try:
        return f"{type(exc).__name__}: {exc}"[:size]
    except Exception:  # noqa: BLE001
        return f"{type(exc).__name__}: <unprintable>"


class FirstFailure(BaseException):
    """A test failed and the job stops at the first failure (``partial_credit`` off): no later test can
    change the verdict. A BaseException, so that test code's ``except Exception`` does not swallow it."""


class Recorder:
    """Called by the instrumented tests as ``__rk_record__(site, value, exc)``."""

    def __init__(self, sites: list[dict], deadline: float, stop_at_failure: bool = False) -> None:
        self.outcomes = [{"line": s["line"], "source": s["source"], "outcome": "not_run"} for s in sites]
        self.repeat = [s.get("repeat") for s in sites]
        self.deadline = deadline
        self.pending: set[int] = set()
        self.crashed = False  # the candidate crashed or timed out since the last recorded test (the next one fails)
        self.broken = False  # a statement was cut short: sites in helper functions cannot be trusted
        self.stop_at_failure = stop_at_failure
        self.failed = False

    def __call__(self, index: int, value, exc) -> None:  # type: ignore[no-untyped-def]
        if time.monotonic() >= self.deadline:
            raise Deadline()  # test code that swallowed the deadline records nothing more
        if self.failed and self.stop_at_failure:
            raise FirstFailure()  # test code that swallowed it records nothing more either
        entry = self.outcomes[index]
        crashed, self.crashed = self.crashed, False
        if entry["outcome"] == "fail":
            return
        if crashed:  # a crash the test code caught (even with a bare except) fails the next test
            ok, error = False, CRASHED
        elif exc is None:
            try:
                ok, error = bool(value), "assertion failed"
            except Exception as bad:  # noqa: BLE001 - a candidate object's truth value
                ok, error = False, describe(bad)
        else:
            ok, error = False, describe(exc)
        if not ok:
            self.pending.discard(index)
            entry["error"] = error
            entry["outcome"] = "fail"
            self.failed = True
            if self.stop_at_failure:
                raise FirstFailure()
        elif self.repeat[index]:
            self.pending.add(index)
        else:
            entry["outcome"] = "pass"

    def crash(self) -> None:
        """The candidate crashed or timed out: the next test fails, and so does every pass still pending
        (test code that catches the crash with a bare ``except`` may break out of their loop and go on)."""
        self.crashed = True
        self.cut_short(False)

    def commit(self, indices=None) -> None:  # type: ignore[no-untyped-def]
        """Credit the pending passes of ``indices`` (all when None): their loop or statement finished."""
        if time.monotonic() >= self.deadline:
            raise Deadline()  # a loop that "finished" because test code swallowed the deadline did not
        for index in sorted(self.pending if indices is None else self.pending.intersection(indices)):
            self.pending.discard(index)
            if self.outcomes[index]["outcome"] != "fail":
                self.outcomes[index]["outcome"] = "pass"

    def finished(self) -> bool:
        """The statement ran to its end: credit what it checked (unless the candidate crashed in it; then
        the next test recorded fails too, as it would not have run in plain execution)."""
        if self.crashed:
            self.cut_short(False)
            return False
        self.commit()
        return True

    def cut_short(self, timeout: bool) -> None:
        """The statement stopped early: its pending passes fail, and so does every helper-function site."""
        self.broken = True
        outcome = "timeout" if timeout else "fail"
        for index in sorted(self.pending):
            self._demote(index, outcome, UNFINISHED)
        self.pending.clear()
        for index, kind in enumerate(self.repeat):
            if kind == "function" and self.outcomes[index]["outcome"] == "pass":
                self._demote(index, outcome, UNFINISHED)

    def finalize(self, timeout: bool) -> list[dict]:
        if self.pending or self.broken:
            self.cut_short(timeout)
        return self.outcomes

    def _demote(self, index: int, outcome: str, error: str) -> None:
        entry = self.outcomes[index]
        if entry["outcome"] != "fail":
            entry["outcome"] = outcome
            entry.setdefault("error", error)
