"""Process helpers of the code harness (plain stdlib, runs inside the sandbox): the deadline
exception, event counters, starting a candidate process, and the sweep that kills what it left.

Children start with ``os.posix_spawn`` in a new session (``subprocess`` alone costs more to import
than the rest of the supervisor), with exactly the fds they are given: stdin, stdout, stderr and
the ``keep`` list; every other fd of the supervisor is close-on-exec.
"""

from __future__ import annotations

import _signal  # type: ignore[import-not-found]
import os
import signal
import sys
import time


class Deadline(BaseException):
    """The time budget is spent: stop everything and report."""


# Every catchable signal but these is ignored by the supervisor (see ``shield_signals``).
_KEPT = {signal.SIGKILL, signal.SIGSTOP, signal.SIGCHLD, signal.SIGALRM}
_SHIELDED: list[int] = []
STARTED = [0]  # candidate processes started so far (after the first, a failure may be the candidate's doing)
# Set by the warm zygotes: [(runner path, start, pid)], where start(args, stdin, stdout, stderr, keep) hands the
# first start of the runner to the candidate process ``pid`` (a child of ours, forked before the job was read)
# and returns that pid, or None when it cannot (then, and for every later start, one is exec'd). Empty elsewhere.
PRESTARTED: list = []
# The dir candidate processes start in (the scratch dir); the supervisor itself stays in a dir the run cannot
# write (see code_invariants.py).
RUN_DIR = [""]


def shield_signals() -> None:
    """Ignore every signal the candidate could send us, directly or through ``F_SETOWN``/``F_SETSIG``.

    A signal to the supervisor can only come from the candidate (the sandbox kills, never signals, it),
    so none may end, interrupt or stop it: SIGINT would otherwise raise KeyboardInterrupt, SIGTERM,
    SIGUSR1, SIGIO and the real-time signals would end it, SIGTSTP would stop it. SIGALRM keeps a
    handler that checks the clock (an early one is ignored). SIGKILL and SIGSTOP cannot be ignored:
    where the candidate can deliver those (docker, through F_SETSIG), the supervisor dies or stalls
    without a report, which the host scores as the program's failure. Children get default dispositions.
    """
    for number in range(1, signal.NSIG):
        if number in _KEPT:
            continue
        try:
            _signal.signal(number, _signal.SIG_IGN)  # not signal.signal: its enum wrapping costs a run 0.1 ms
        except (OSError, ValueError, RuntimeError):
            continue
        _SHIELDED.append(number)


def nondumpable() -> bool:
    """Make this process non-dumpable (no ptrace, no /proc/<pid>/mem for the same uid); False if we cannot."""
    try:
        import ctypes

        return ctypes.CDLL(None).prctl(4, 0, 0, 0, 0) == 0  # PR_SET_DUMPABLE = 0
    except (OSError, AttributeError, ImportError):
        return False


class Child:
    """A spawned process; ``returncode`` as in subprocess (negative: killed by that signal)."""

    def __init__(
        self,
        argv: list[str],
        *,
        stdin: int,
        stdout: int,
        stderr: int,
        keep: tuple[int, ...] = (),
        pid: int | None = None,
    ) -> None:
        self.returncode: int | None = None
        STARTED[0] += 1
        if pid is not None:  # already started (the local zygote's pre-forked candidate process)
            self.pid = pid
            return
        for fd in keep:
            os.set_inheritable(fd, True)
        actions = [(os.POSIX_SPAWN_DUP2, stdin, 0), (os.POSIX_SPAWN_DUP2, stdout, 1), (os.POSIX_SPAWN_DUP2, stderr, 2)]
        home = os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC) if RUN_DIR[0] else None
        try:
            if RUN_DIR[0]:
                os.chdir(RUN_DIR[0])  # posix_spawn has no chdir action: only this call runs in the scratch dir
            self.pid = os.posix_spawn(
                argv[0],
                argv,
                dict(os.environ),
                file_actions=actions,
                setsid=True,
                setsigdef=[*_SHIELDED, signal.SIGALRM],
            )
        finally:
            if home is not None:
                os.fchdir(home)
                os.close(home)

    def settle(self, status: int) -> None:
        self.returncode = os.waitstatus_to_exitcode(status)

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                self.returncode = -signal.SIGKILL
                return self.returncode
            if pid == self.pid:
                self.settle(status)
        return self.returncode

    def wait(self, timeout: float) -> int | None:
        """The exit status, or None if the process is still running after ``timeout`` seconds."""
        end = time.monotonic() + timeout
        while self.poll() is None and time.monotonic() < end:
            time.sleep(0.001)
        return self.returncode


# The harness scripts a pre-forked candidate process can become (the runner of function tests, or of cases).
PRESTARTABLE = ("code_runner.py", "code_case_runner.py")


def spawn_python(args: list[str], *, stdin: int, stdout: int, stderr: int, keep: tuple[int, ...] = ()) -> Child:
    prestarted_here = PRESTARTED and args and os.path.dirname(args[0]) == os.path.dirname(PRESTARTED[0][0])
    if prestarted_here and os.path.basename(args[0]) in PRESTARTABLE:
        pid = PRESTARTED.pop()[1](args, stdin, stdout, stderr, keep)
        if pid is not None:
            return Child(args, stdin=stdin, stdout=stdout, stderr=stderr, pid=pid)
    return Child([sys.executable, "-I", "-S", "-B", *args], stdin=stdin, stdout=stdout, stderr=stderr, keep=keep)


def sweep(child: Child | None) -> None:
    """Kill the candidate's processes (every one when we are PID 1) and reap them."""
    if os.getpid() == 1:
        end = time.monotonic() + 2.0
        while time.monotonic() < end:
            try:  # again each round: a pre-forked candidate process that was still root a moment ago is not now
                os.kill(-1, signal.SIGKILL)
            except OSError:
                pass
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                time.sleep(0.002)
            elif child is not None and pid == child.pid and child.returncode is None:
                child.settle(status)
        if child is not None and child.returncode is None:
            child.returncode = -signal.SIGKILL
        return
    if child is not None and child.returncode is None:
        for kill in (lambda: os.killpg(child.pid, signal.SIGKILL), lambda: os.kill(child.pid, signal.SIGKILL)):
            try:
                kill()
            except OSError:
                pass
        child.wait(2.0)


class Events:
    def __init__(self) -> None:
        self.counts = {"timeouts": 0, "memory_errors": 0, "crashes": 0, "exceptions": 0, "restarts": 0}

    def add(self, name: str) -> None:
        self.counts[name] = self.counts.get(name, 0) + 1
