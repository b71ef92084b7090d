"""Process helpers of the code harness (plain stdlib, runs inside the sandbox): the deadline
exception, event counters, starting a candidate process, and the sweep that kills what it left.

Children start with ``os.posix_spawn`` in a new session (``subprocess`` alone costs more to import
than the rest of the supervisor), with exactly the fds they are given: stdin, stdout, stderr and
the ``keep`` list; every other fd of the supervisor is close-on-exec.
"""

from __future__ import annotations

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
# Set by the local sandbox's warm zygote: [(runner path, start)], where start(args, stdin, stdout, stderr, keep)
# hands the first start of the runner to a candidate process forked before the job was read and returns its
# pid (a child of ours), or None when it cannot (then, and for every later start, one is exec'd). Empty elsewhere.
PRESTARTED: list = []


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
            signal.signal(number, signal.SIG_IGN)
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
        self.pid = os.posix_spawn(
            argv[0], argv, dict(os.environ), file_actions=actions, setsid=True, setsigdef=[*_SHIELDED, signal.SIGALRM]
        )

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


def spawn_python(args: list[str], *, stdin: int, stdout: int, stderr: int, keep: tuple[int, ...] = ()) -> Child:
    if PRESTARTED and args and args[0] == PRESTARTED[0][0]:
        pid = PRESTARTED.pop()[1](args, stdin, stdout, stderr, keep)
        if pid is not None:
            return Child(args, stdin=stdin, stdout=stdout, stderr=stderr, pid=pid)
    return Child([sys.executable, "-I", "-S", "-B", *args], stdin=stdin, stdout=stdout, stderr=stderr, keep=keep)


def sweep(child: Child | None) -> None:
    """Kill the candidate's processes (every one when we are PID 1) and reap them."""
    if os.getpid() == 1:
        try:
            os.kill(-1, signal.SIGKILL)
        except OSError:
            pass
        end = time.monotonic() + 2.0
        while time.monotonic() < end:
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
