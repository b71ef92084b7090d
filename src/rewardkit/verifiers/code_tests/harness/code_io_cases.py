"""Stdin/stdout cases for the code harness's supervisor (plain stdlib, runs inside the sandbox).

Each case runs ``program.py`` as ``__main__`` in a fresh process with the case's input on stdin; the
supervisor feeds it, reads its stdout (capped), sees that nothing of it is left, and compares the output
here. Imported by ``code_supervisor.py`` before any candidate process exists.

Where the supervisor is PID 1 of the run's namespace, a case is a fork of one warm candidate process
(``code_case_runner.py``: the program compiled once, common modules imported) instead of a new interpreter
(about 12 ms of CPU a case): ``WarmCases``. A case that leaves a process behind, runs past its time or floods
its output ends with every process of the run but this one killed, the warm process included, which the next
case starts anew. Elsewhere (``isolation="rlimits"``) every case is a new interpreter.
"""

from __future__ import annotations

import json
import os
import select
import signal
import time

try:
    from code_invariants import gone
    from code_procs import Child, Deadline, Events, spawn_python, sweep
except ImportError:  # imported from the installed package (on the host, by tests)
    from rewardkit.verifiers.code_tests.harness.code_invariants import gone
    from rewardkit.verifiers.code_tests.harness.code_procs import Child, Deadline, Events, spawn_python, sweep

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(HERE, "program.py")
CASE_RUNNER = os.path.join(HERE, "code_case_runner.py")


def run_io_tests(job: dict, deadline: float, events: Events, result: dict, checker=None) -> None:  # type: ignore[no-untyped-def]
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
    cases = WarmCases(events) if os.getpid() == 1 else None
    try:
        _run_cases(job, deadline, result, checker, cases, tests, cap, events)
    finally:
        if cases is not None:
            cases.close()


def _run_cases(job, deadline, result, checker, cases, tests, cap, events) -> None:  # type: ignore[no-untyped-def]
    for i, (given, expected) in enumerate(zip(job["inputs"], job["outputs"], strict=False)):
        limit = deadline if job.get("call_timeout") is None else min(deadline, time.monotonic() + job["call_timeout"])
        outcome, error, out = _run_case(given.encode("utf-8"), cap, limit, events, cases)
        if checker is not None:  # nothing of this case may answer for the next one (the warm process holds none)
            checker.between_cases(cases.pids() if cases is not None else ())
        if outcome == "ran":
            ok = outputs_match(out.decode("utf-8", "replace"), expected, job.get("tolerance"), job.get("compare"))
            outcome, error = ("pass", None) if ok else ("fail", "wrong output")
        tests[i]["outcome"] = outcome
        if error:
            tests[i]["error"] = error
        if time.monotonic() >= deadline:
            raise Deadline()
        if outcome != "pass" and job.get("stop_at_failure"):
            result["stopped"] = "first failure"
            return


def _run_case(
    data: bytes, cap: int, limit: float, events: Events, cases: WarmCases | None = None
) -> tuple[str, str | None, bytes]:
    stdin_r, stdin_w = os.pipe()
    stdout_r, stdout_w = os.pipe()
    error = "could not start the program"
    try:
        proc: Child | Case | None = (
            cases.start(stdin_r, stdout_w, limit)
            if cases is not None
            else spawn_python([PROGRAM], stdin=stdin_r, stdout=stdout_w, stderr=2)
        )
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
        if cases is not None:
            cases.finish()
        else:
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


class Case:
    """One case forked by the warm process: its pid (in our namespace) and, once reaped there, its status."""

    def __init__(self, cases: WarmCases, pid: int) -> None:
        self.cases, self.pid = cases, pid
        self.returncode: int | None = None

    def wait(self, timeout: float) -> int | None:
        """The exit status (as subprocess reports it), or None when it is not over within ``timeout`` seconds."""
        until = time.monotonic() + timeout
        if self.returncode is None:
            status = self.cases.status(until)
            if status is None and self.cases.server is None:  # the warm process died: the case is our child now
                status = _reap(self.pid, until)
                if status is None and not os.path.exists(f"/proc/{self.pid}"):
                    # Reaped by the warm process, which died (SIGKILL, from the case itself: it can stop nothing
                    # else) before it could tell the status: the case ended, judged by its output alone.
                    status = 0
            if status is not None:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode


class WarmCases:
    """The warm candidate process (``code_case_runner.py``) that forks each case; started again when a case's end
    took it with everything else."""

    def __init__(self, events: Events) -> None:
        import socket  # only stdin/stdout jobs need it

        self.socket = socket
        self.events = events
        self.server: Child | None = None
        self.sock: socket.socket | None = None

    def pids(self) -> tuple[int, ...]:
        return (self.server.pid,) if self.server is not None else ()

    def start(self, stdin_r: int, stdout_w: int, limit: float) -> Case | None:
        if self.server is None:
            self._start_server()
        try:
            assert self.sock is not None
            self.socket.send_fds(self.sock, [b"case"], [stdin_r, stdout_w, 2])
            reply = self._receive(limit)
        except OSError:
            reply = None
        if type(reply) is not dict or type(reply.get("pid")) is not int:
            self.kill_all()  # it died, or broke its protocol: nothing of it is trusted, the case fails
            self.events.add("crashes")
            return None
        return Case(self, reply["pid"])

    def status(self, until: float) -> int | None:
        """The case's wait status from the warm process; None when it is late, or gone (then ``server`` is None)."""
        reply = self._receive(until)
        if reply is EOF:
            self._close()
            return None
        if type(reply) is not dict or type(reply.get("status")) is not int:
            return None
        return reply["status"]

    def finish(self) -> None:
        """After a case: where anything but the warm process is still alive (the case ran late, left a process,
        or the warm process broke), every process of the run is killed."""
        if self.server is None or self._others_alive():
            self.kill_all()

    def kill_all(self) -> None:
        sweep(None)  # as PID 1: every process of the run, the warm one included
        if self.server is not None:
            self.server.returncode = self.server.returncode or -signal.SIGKILL
        self._close()

    def close(self) -> None:
        if self.server is not None:
            self.kill_all()

    def _start_server(self) -> None:
        ours, theirs = self.socket.socketpair(self.socket.AF_UNIX, self.socket.SOCK_SEQPACKET)
        devnull = os.open(os.devnull, os.O_RDWR)
        try:
            self.server = spawn_python(
                [CASE_RUNNER, PROGRAM, str(theirs.fileno())],
                stdin=devnull,
                stdout=devnull,
                stderr=2,
                keep=(theirs.fileno(),),
            )
        finally:
            os.close(devnull)
            theirs.close()
        self.sock = ours

    def _receive(self, until: float):  # type: ignore[no-untyped-def]
        left = until - time.monotonic()
        if self.sock is None or left <= 0 or not select.select([self.sock], [], [], left)[0]:
            return None
        try:
            data = self.sock.recv(4096)
            return json.loads(data) if data else EOF
        except OSError:
            return EOF
        except ValueError:
            return None

    def _others_alive(self) -> bool:
        for entry in os.listdir("/proc"):
            if entry.isdigit() and int(entry) not in (1, self.server.pid if self.server else 0):
                if not gone(entry):
                    return True
        return False

    def _close(self) -> None:
        if self.sock is not None:
            self.sock.close()
        self.sock, self.server = None, None


EOF = object()  # the warm process hung up


def _reap(pid: int, until: float) -> int | None:
    """Wait for ``pid`` (an orphan of the warm process, so ours as PID 1) until ``until``; its wait status."""
    while time.monotonic() < until:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:  # not handed to us yet (its parent is still exiting), or reaped already
            if not os.path.exists(f"/proc/{pid}"):
                return None
            done, status = 0, 0
        if done:
            return status
        time.sleep(0.001)
    return None


AUTO_TOLERANCE = 1e-6
_NUMBER_CHARS = frozenset("0123456789+-.eE")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def outputs_match(actual: str, expected: str, tolerance, rule=None) -> bool:  # type: ignore[no-untyped-def]
    """Line by line, whitespace runs collapsed, blank lines at the ends ignored; numbers within ``tolerance``.

    ``tolerance="auto"``: where the expected token is a decimal (``0.5``, ``1e-3``), a number within
    1e-6 (absolute, or relative past 1) matches; integers and text match exactly. A number: every
    numeric token matches within it. ``"value"``: numeric tokens match when they are the same number
    exactly (``1.0`` and ``1.00``, ``3`` and ``3.0``). None: exact everywhere.

    ``rule`` (a dataset's own grader, all optional): ``flat`` compares the tokens regardless of line
    breaks, ``ignore_case`` folds ASCII letters, ``relative`` False makes a numeric tolerance absolute only.
    """
    rule = rule or {}
    if rule.get("ignore_case"):
        actual, expected = actual.translate(_ASCII_LOWER), expected.translate(_ASCII_LOWER)
    a, b = _tokens(actual), _tokens(expected)
    if rule.get("flat"):
        a, b = [[t for line in a for t in line]], [[t for line in b for t in line]]
    if len(a) != len(b):
        return False
    relative = rule.get("relative", True) is not False
    for line_a, line_b in zip(a, b, strict=False):
        if len(line_a) != len(line_b):
            return False
        for x, y in zip(line_a, line_b, strict=False):
            if x != y and not _close(x, y, tolerance, relative):
                return False
    return True


def _close(x: str, y: str, tolerance, relative: bool = True) -> bool:  # type: ignore[no-untyped-def]
    if tolerance is None:
        return False
    if tolerance == "value":
        return _same_value(x, y)
    if tolerance == "auto":
        if not ("." in y or "e" in y or "E" in y):
            return False  # an integer or text: exact
        tolerance = AUTO_TOLERANCE
    fx, fy = _number(x), _number(y)
    if fx is None or fy is None:
        return False
    return abs(fx - fy) <= tolerance * (max(1.0, abs(fy)) if relative else 1.0)


def _same_value(x: str, y: str) -> bool:
    """Both tokens are the same number, compared exactly (no float rounding: 10**17 and 10**17 + 1 differ)."""
    if not (_NUMBER_CHARS.issuperset(x) and _NUMBER_CHARS.issuperset(y)):
        return False
    from decimal import Decimal, InvalidOperation  # only on a mismatch: most outputs never need it

    try:
        return bool(Decimal(x) == Decimal(y))
    except (InvalidOperation, ValueError):
        return False


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
    start = 0
    while start < len(lines) and not lines[start]:
        start += 1
    return lines[start:]
