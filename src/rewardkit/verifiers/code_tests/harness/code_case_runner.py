"""The candidate's side of stdin/stdout cases: one warm process that forks a fresh copy of itself per case
(plain stdlib; untrusted, like everything in a candidate process).

Started by the supervisor as ``python3 -I -S -B code_case_runner.py PROGRAM SOCK_FD`` (or handed that start, when a
warm zygote pre-forked the candidate process). It reads and compiles ``program.py`` once and imports what
programs commonly import; then, per case, the supervisor sends ``case`` over the socket with the case's stdin,
stdout and stderr (``SCM_RIGHTS``). The server forks: the child takes them as its fds 0, 1 and 2, holds no other
fd, and runs the program as ``__main__`` in a namespace of its own, ending as ``python3 program.py`` would
(exit status, traceback, threads, atexit); the server answers the child's pid at once and its wait status when
it has reaped it. So each case starts from the same state, copied, not from a new interpreter: what a case
changes (modules, globals, builtins) is gone with its process.

The server never runs the program itself, and it makes itself non-dumpable, so a case cannot reach into it;
a case may still kill it, and the supervisor then starts another. The supervisor trusts nothing this process
says beyond what it checks itself: the output it reads from its own pipe, a pid in its own namespace.
"""

from __future__ import annotations

import atexit
import builtins
import json
import os
import signal
import socket
import sys
import traceback

# What stdin/stdout programs commonly import: imported once here, each case gets its own copy.
WARM = ("collections", "heapq", "bisect", "itertools", "functools", "math", "re", "string", "operator")


def main() -> None:
    program, sock_fd = sys.argv[1], int(sys.argv[2])
    sock = socket.socket(fileno=sock_fd)
    with open(program, encoding="utf-8", errors="replace") as fh:
        source = fh.read()
    code = compile(source, program, "exec", dont_inherit=True)  # the supervisor compiled it before: it does
    for name in WARM:
        try:
            __import__(name)
        except ImportError:
            continue
    _dumpable(False)  # a case (a child of ours, our uid) can neither trace nor write into this process
    dispositions = _ignore_signals()  # a case that signals its parent ends no one (as with the supervisor)
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(sock, 64, 3)
        except OSError:
            return
        if message != b"case" or len(fds) != 3:
            for fd in fds:
                os.close(fd)
            return
        pid = os.fork()
        if pid == 0:
            status = 1
            try:
                sock.close()
                for number, handler in dispositions.items():
                    signal.signal(number, handler)  # the interpreter's own, as this process started with them
                status = _run_case(code, program, fds)
            finally:
                os._exit(status)  # never back into this loop
        for fd in fds:
            os.close(fd)
        _send(sock, {"pid": pid})
        _, status = os.waitpid(pid, 0)
        _send(sock, {"status": status})


def _ignore_signals() -> dict:
    """Ignore every catchable signal but SIGCHLD; the dispositions they had, for each case to take back."""
    before = {}
    for number in range(1, signal.NSIG):
        if number in (signal.SIGKILL, signal.SIGSTOP, signal.SIGCHLD):
            continue
        try:
            handler = signal.getsignal(number)
            signal.signal(number, signal.SIG_IGN)
            if handler is not None:  # None: not one Python can set back (none at start)
                before[number] = handler
        except (OSError, ValueError, RuntimeError):
            continue
    return before


def _send(sock: socket.socket, message: dict) -> None:
    try:
        sock.send(json.dumps(message).encode())
    except OSError:
        os._exit(0)  # the supervisor is gone


def _run_case(code, program: str, fds: list[int]) -> int:  # type: ignore[no-untyped-def]
    """In the forked child: fds 0-2 are the case's and no other is open; the program runs as ``__main__``."""
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))
    _dumpable(True)  # as an exec'd interpreter is: its own /proc/self, as usual
    # the interpreter's own stdio for pipes: utf-8 (PYTHONIOENCODING), no newline translation, block-buffered
    sys.stdin = open(0, encoding="utf-8", newline="\n", closefd=False)
    sys.stdout = open(1, "w", encoding="utf-8", newline="\n", closefd=False)
    sys.stderr = open(2, "w", buffering=1, encoding="utf-8", errors="backslashreplace", newline="\n", closefd=False)
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = sys.stdin, sys.stdout, sys.stderr  # type: ignore[misc]
    sys.argv = [program]
    main = type(sys)("__main__")
    main.__file__ = program
    main.__builtins__ = builtins  # type: ignore[attr-defined]
    sys.modules["__main__"] = main
    return exit_like_an_interpreter(lambda: exec(code, main.__dict__))  # running the candidate is its job


def exit_like_an_interpreter(main) -> int:  # type: ignore[no-untyped-def]
    """Run ``main`` and end as ``python3 script.py`` would: exit status, traceback, threads, atexit."""
    code = 0
    try:
        main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if not isinstance(exc.code, (int, type(None))):
            print(exc.code, file=sys.stderr)
    except BaseException:  # noqa: BLE001 - as the interpreter: print it, exit 1
        traceback.print_exc()
        code = 1
    try:
        threading = sys.modules.get("threading")
        if threading is not None:
            threading._shutdown()
        atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
    except BaseException:  # noqa: BLE001 - the program's own exit hooks failed: as the interpreter would
        pass
    return code & 0xFF


def _dumpable(flag: bool) -> None:
    try:
        import ctypes

        ctypes.CDLL(None).prctl(4, int(flag), 0, 0, 0)  # PR_SET_DUMPABLE
    except (OSError, AttributeError, ImportError):
        pass


if __name__ == "__main__":
    main()
