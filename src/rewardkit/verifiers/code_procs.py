"""Process helpers of the code harness (plain stdlib, runs inside the sandbox): the deadline
exception, event counters, and the sweep that kills what the candidate left behind."""

from __future__ import annotations

import os
import signal
import subprocess
import time


class Deadline(BaseException):
    """The time budget is spent: stop everything and report."""


def nondumpable() -> None:
    try:
        import ctypes

        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE = 0
    except (OSError, AttributeError, ImportError):
        pass


def sweep(proc: subprocess.Popen | None) -> None:
    """Kill the candidate's processes (every one when we are PID 1) and reap them."""
    if os.getpid() == 1:
        try:
            os.kill(-1, signal.SIGKILL)
        except OSError:
            pass
        end = time.monotonic() + 2.0
        while time.monotonic() < end:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                time.sleep(0.002)
        if proc is not None and proc.returncode is None:
            proc.returncode = -9
        return
    if proc is not None and proc.returncode is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            proc.kill()
            proc.wait(timeout=2)
        except (OSError, subprocess.TimeoutExpired):
            pass


class Events:
    def __init__(self) -> None:
        self.counts = {"timeouts": 0, "memory_errors": 0, "crashes": 0, "exceptions": 0, "restarts": 0}

    def add(self, name: str) -> None:
        self.counts[name] = self.counts.get(name, 0) + 1
