"""A sandbox for tests that runs nothing: each run is answered by a function of the test's, and recorded."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from rewardkit.sandbox.base import Limits, RunResult, Sandbox
from rewardkit.sandbox.run_checks import check_run


@dataclass(frozen=True)
class FakeRun:
    """One call of :meth:`FakeSandbox.run`, as the sandbox received it (``files`` as bytes)."""

    command: tuple[str, ...]
    files: Mapping[str, bytes]
    stdin: bytes | None
    limits: Limits
    collect: tuple[str, ...]


Answer = Callable[[FakeRun], RunResult]


class FakeSandbox(Sandbox):
    """``FakeSandbox(answer)``: every ``run`` is checked as a real backend checks it (relative paths, not closed,
    a command), recorded in ``runs`` and answered by ``answer(run)``; by default exit code 0 and no output.
    For testing a verifier or reward that takes a sandbox without running anything
    (``rk.get_verifier("code", sandbox=FakeSandbox(...))``, or registered under a name of the test's)."""

    name = "fake"

    def __init__(self, answer: Answer | None = None) -> None:
        self.answer = answer or (lambda run: RunResult(exit_code=0))
        self.runs: list[FakeRun] = []
        self.closed = False
        self._lock = threading.Lock()

    def run(
        self,
        command: Sequence[str],
        files: Mapping[str, bytes | str],
        *,
        stdin: bytes | None = None,
        limits: Limits | None = None,
        collect: Sequence[str] = (),
    ) -> RunResult:
        check_run("fake", self.closed, command, [*files, *collect])
        run = FakeRun(
            tuple(command),
            {name: data.encode() if isinstance(data, str) else bytes(data) for name, data in files.items()},
            stdin,
            limits or Limits(),
            tuple(collect),
        )
        with self._lock:
            self.runs.append(run)
        return self.answer(run)

    def close(self) -> None:
        self.closed = True
