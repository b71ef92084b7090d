"""Stdin/stdout cases for the code harness's supervisor (plain stdlib, runs inside the sandbox).

Each case runs ``program.py`` as ``__main__`` in a fresh child with the case's input on stdin; the
supervisor feeds it, reads its stdout (capped), sweeps every process it left, and compares the
output here. Imported by ``code_supervisor.py`` before any candidate process exists.
"""

from __future__ import annotations

import os
import select
import signal
import time

try:
    from code_procs import Child, Deadline, Events, spawn_python, sweep
except ImportError:  # imported from the installed package (on the host, by tests)
    from rewardkit.verifiers.code_tests.harness.code_procs import Child, Deadline, Events, spawn_python, sweep

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(HERE, "program.py")


def run_io_tests(job: dict, deadline: float, events: Events, result: dict) -> None:
    with open(PROGRAM, encoding="utf-8", errors="replace") as fh:
        source = fh.read()
    tests = [{"line": i, "source": f"case {i}", "outcome": "not_run"} for i in range(len(job["inputs"]))]
    result.update(mode="io", tests=tests)
    try:
        compile(source, "program.py", "exec", dont_inherit=True)
    except Exception as exc:  # noqa: BLE001 - whatever the program's text makes compile() raise is its failure
        result["load"] = {"status": "compile_error", "error": f"{type(exc).__name__}: {exc}"[:2000]}
        return
    result["load"] = {"status": "ok"}
    cap = int(job.get("max_output_bytes", 1 << 20))
    for i, (given, expected) in enumerate(zip(job["inputs"], job["outputs"], strict=False)):
        limit = deadline if job.get("call_timeout") is None else min(deadline, time.monotonic() + job["call_timeout"])
        outcome, error, out = _run_case(given.encode("utf-8"), cap, limit, events)
        if outcome == "ran":
            ok = outputs_match(out.decode("utf-8", "replace"), expected, job.get("tolerance"))
            outcome, error = ("pass", None) if ok else ("fail", "wrong output")
        tests[i]["outcome"] = outcome
        if error:
            tests[i]["error"] = error
        if time.monotonic() >= deadline:
            raise Deadline()
        if outcome != "pass" and job.get("stop_at_failure"):
            result["stopped"] = "first failure"
            return


def _run_case(data: bytes, cap: int, limit: float, events: Events) -> tuple[str, str | None, bytes]:
    stdin_r, stdin_w = os.pipe()
    stdout_r, stdout_w = os.pipe()
    try:
        proc: Child | None = spawn_python([PROGRAM], stdin=stdin_r, stdout=stdout_w, stderr=2)
    except OSError as exc:
        proc = None
        error = f"could not start the program: {exc}"
    finally:
        os.close(stdin_r)
        os.close(stdout_w)
    if proc is None:
        os.close(stdin_w)
        os.close(stdout_r)
        events.add("crashes")
        return "fail", error, b""
    out, over, late = bytearray(), False, False
    pending = memoryview(data)
    os.set_blocking(stdin_w, False)
    wfds = [stdin_w] if pending else []
    if not pending:
        os.close(stdin_w)
    try:
        while True:
            left = limit - time.monotonic()
            if left <= 0:
                late = True
                break
            readable, writable, _ = select.select([stdout_r], wfds, [], left)
            if writable:
                try:
                    pending = pending[os.write(stdin_w, pending[:65536]) :]
                except OSError:
                    pending = pending[:0]
                if not pending:
                    os.close(stdin_w)
                    wfds = []
            if readable:
                block = os.read(stdout_r, 65536)
                if not block:
                    break
                out += block
                if len(out) > cap:
                    over = True
                    break
        code = None if (late or over) else proc.wait(max(0.0, limit - time.monotonic()))
    finally:
        sweep(proc)
        if wfds:
            os.close(stdin_w)
        os.close(stdout_r)
    if late or code is None:
        events.add("timeouts")
        return "timeout", "the program ran past its time limit", b""
    if over:
        events.add("exceptions")
        return "fail", "output over the limit", b""
    if code in (-signal.SIGXCPU, -signal.SIGKILL):
        events.add("timeouts")
        return "timeout", "the program hit its CPU time limit", b""
    if code != 0:
        events.add("crashes" if code < 0 else "exceptions")
        return "error", f"exit status {code}", bytes(out)
    return "ran", None, bytes(out)


AUTO_TOLERANCE = 1e-6
_NUMBER_CHARS = frozenset("0123456789+-.eE")


def outputs_match(actual: str, expected: str, tolerance) -> bool:  # type: ignore[no-untyped-def]
    """Line by line, whitespace runs collapsed, trailing blank lines ignored; numbers within ``tolerance``.

    ``tolerance="auto"``: where the expected token is a decimal (``0.5``, ``1e-3``), a number within
    1e-6 (absolute, or relative past 1) matches; integers and text match exactly. A number: every
    numeric token matches within it. None: exact everywhere.
    """
    a, b = _tokens(actual), _tokens(expected)
    if len(a) != len(b):
        return False
    for line_a, line_b in zip(a, b, strict=False):
        if len(line_a) != len(line_b):
            return False
        for x, y in zip(line_a, line_b, strict=False):
            if x != y and not _close(x, y, tolerance):
                return False
    return True


def _close(x: str, y: str, tolerance) -> bool:  # type: ignore[no-untyped-def]
    if tolerance is None:
        return False
    if tolerance == "auto":
        if not ("." in y or "e" in y or "E" in y):
            return False  # an integer or text: exact
        tolerance = AUTO_TOLERANCE
    fx, fy = _number(x), _number(y)
    if fx is None or fy is None:
        return False
    return abs(fx - fy) <= tolerance * max(1.0, abs(fy))


def _number(token: str) -> float | None:
    """A finite number written in ASCII digits (not ``nan``, ``inf``, ``1_0`` or other digits)."""
    if not _NUMBER_CHARS.issuperset(token):
        return None
    try:
        value = float(token)
    except ValueError:
        return None
    return value if value - value == 0 else None


def _tokens(text: str) -> list[list[str]]:
    lines = [line.split() for line in text.replace("\r\n", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines
