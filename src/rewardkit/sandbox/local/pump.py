"""Feed a run's stdin and read its stdout/stderr on the host, and turn what came back into a RunResult.

Shared by both paths of the ``local`` sandbox: a fork-exec'd launcher (``local/sandbox.py``) and a run
forked by a warm zygote (``local/zygote.py``).
"""

from __future__ import annotations

import os
import selectors
import time
from collections.abc import Callable

from rewardkit.sandbox.base import RunResult
from rewardkit.sandbox.run_checks import ran_out_of_memory

# The first stderr line of a run that one of these tools wrote is the tool's failure, not the program's.
TOOL_PREFIXES = (
    "bwrap: ",
    "unshare: ",
    "prlimit: ",
    "setpriv: ",
    "rk-setup: ",
    "rk-cgroup: ",
    "rk-seccomp: ",
    "rk-zygote: ",
    "mount: ",
    "cp: ",
)
# What util-linux unshare (2.38, Debian 12) prints, and exits 1 with, when the run's PID 1 was killed by a
# signal it cannot reset (SIGKILL: a hard CPU limit, the OOM killer): it fails to re-raise the signal on
# itself. The run was killed; the tool did not fail.
UNSHARE_REPORTS_A_KILL = ("unshare: sigprocmask unblock failed", "unshare: signal handler reset failed")


def pump_fds(
    stdin_fd: int,
    close_stdin: Callable[[], None],
    out_fd: int,
    err_fd: int,
    data: bytes,
    deadline: float,
    cap: int,
) -> tuple[bytes, bytes, bool, bool]:
    """Feed stdin, read stdout/stderr up to ``cap`` bytes each, until both close or the deadline.

    Returns (stdout, stderr, truncated, timed_out). ``close_stdin`` is called once stdin is written.
    """
    chunks: dict[int, list[bytes]] = {out_fd: [], err_fd: []}
    sizes = dict.fromkeys(chunks, 0)
    truncated = timed_out = False
    stdin_open = True
    sel = selectors.DefaultSelector()
    for fd in chunks:
        os.set_blocking(fd, False)
        sel.register(fd, selectors.EVENT_READ)
    view = memoryview(data)
    if view:
        os.set_blocking(stdin_fd, False)
        sel.register(stdin_fd, selectors.EVENT_WRITE)
    else:
        close_stdin()
        stdin_open = False
    open_reads = len(chunks)
    try:
        while open_reads and not truncated:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            for key, _ in sel.select(min(left, 1.0)):
                fd = key.fd
                if fd == stdin_fd:
                    try:
                        view = view[os.write(fd, view[:65536]) :]
                    except OSError:
                        view = view[:0]
                    if not view:
                        sel.unregister(fd)
                        close_stdin()
                        stdin_open = False
                    continue
                try:
                    block = os.read(fd, 65536)
                except BlockingIOError:
                    continue
                except OSError:  # closed under us by close()
                    block = b""
                if not block:
                    sel.unregister(fd)
                    open_reads -= 1
                    continue
                room = cap - sizes[fd]
                if len(block) > room:
                    block, truncated = block[:room], True
                chunks[fd].append(block)
                sizes[fd] += len(block)
                if truncated:
                    break
    finally:
        sel.close()
        if stdin_open:
            close_stdin()
    return b"".join(chunks[out_fd]), b"".join(chunks[err_fd]), truncated, timed_out


def run_result(
    tool: str, code: int | None, out: bytes, err: bytes, truncated: bool, timed_out: bool, duration: float
) -> RunResult:
    """The RunResult of a finished run; ``code`` as subprocess reports it (negative: killed by that signal)."""
    if code is not None and code < 0:
        sig, exit_code = -code, None
    elif code == 1 and _first_line(err).startswith(UNSHARE_REPORTS_A_KILL):
        sig, exit_code, code = 9, None, None  # SIGKILL: the only signal unshare cannot reset to re-raise
    elif code is not None and code > 128 and not timed_out:
        sig, exit_code = code - 128, code  # bwrap/unshare report a killed child as 128 + signal
    else:
        sig, exit_code = None, code
    memory = not timed_out and ran_out_of_memory(err)
    return RunResult(
        exit_code=None if timed_out else exit_code,
        stdout=out,
        stderr=err,
        duration=duration,
        timed_out=timed_out,
        memory_exceeded=memory,
        output_truncated=truncated,
        signal=sig,
        infra_error=infra_failure(tool, code, err),
    )


def infra_failure(tool: str, code: int | None, err: bytes) -> str | None:
    """An error of the isolation tool itself (bad bind, no namespaces), not of the program.

    Only the first stderr line counts: the tools fail before the program starts, and a program that
    prints ``bwrap: ...`` later must not pass its own failure off as the infrastructure's.
    """
    if code in (0, None):
        return None
    first = _first_line(err)
    if first.startswith(TOOL_PREFIXES):
        return f"{tool} failed to set up the run: {first.strip()}"
    return None


def _first_line(err: bytes) -> str:
    return err[:2000].decode("utf-8", "replace").split("\n", 1)[0]
