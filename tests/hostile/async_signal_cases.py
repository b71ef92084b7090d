"""Programs that pick the target of a file's async-I/O signal (``F_SETOWN`` & co., then ``O_ASYNC``), a
route to any process of the uid that no ``kill`` check sees; shared by the local suite
(async_signal_programs.py, inside the boundary) and the docker one (tests/sandbox). Only text here:
importing this module runs nothing hostile."""

from __future__ import annotations

import os

from rewardkit.sandbox.seccomp_bpf import FCNTL, IOCTL

COLUMN = {"x86_64": 0, "aarch64": 1}[os.uname().machine]
EPERM = 1
ROUTES = ("F_SETOWN", "F_SETOWN_EX", "F_SETSIG", "FIOSETOWN", "SIOCSPGRP", "F_SETOWN_high_word", "FIOSETOWN_high_word")

# Each route aims SIGIO (or, through F_SETSIG, SIGKILL) at a forked victim that keeps SIGIO's default
# action (terminate): were any route open, the victim would die once data arrives on the O_ASYNC socket.
# Prints {route: errno, ...} plus what ordinary fcntl/ioctl commands returned and whether the victim lives.
ATTEMPT = (
    f"NR_FCNTL, NR_IOCTL = {FCNTL[COLUMN]}, {IOCTL[COLUMN]}\n"
    + r"""
import ctypes, fcntl, json, os, signal, socket, struct, time
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long

def raw(nr, fd, cmd, arg):
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(nr), ctypes.c_long(fd), ctypes.c_long(cmd), arg)
    if r < 0:
        raise OSError(ctypes.get_errno(), "raw call")

def errno_of(call):
    try:
        call()
        return 0
    except OSError as exc:
        return exc.errno

victim = os.fork()
if victim == 0:
    signal.signal(signal.SIGIO, signal.SIG_DFL)
    time.sleep(30)
    os._exit(0)
target = struct.pack("i", victim)
out, held = {}, []
for route in ("F_SETOWN", "F_SETOWN_EX", "F_SETSIG", "FIOSETOWN", "SIOCSPGRP", "F_SETOWN_high_word",
              "FIOSETOWN_high_word"):
    a, b = socket.socketpair()
    held.append((a, b))
    fd = a.fileno()
    call = {
        "F_SETOWN": lambda: fcntl.fcntl(fd, 8, victim),
        "F_SETOWN_EX": lambda: fcntl.fcntl(fd, 15, struct.pack("ii", 1, victim)),  # F_OWNER_PID
        "F_SETSIG": lambda: fcntl.fcntl(fd, 10, int(signal.SIGKILL)),
        "FIOSETOWN": lambda: fcntl.ioctl(fd, 0x8901, target),
        "SIOCSPGRP": lambda: fcntl.ioctl(fd, 0x8902, target),
        # the kernel reads cmd as an unsigned int and drops the high word
        "F_SETOWN_high_word": lambda: raw(NR_FCNTL, fd, (1 << 32) | 8, ctypes.c_long(victim)),
        "FIOSETOWN_high_word": lambda: raw(NR_IOCTL, fd, (1 << 32) | 0x8901, ctypes.c_char_p(target)),
    }[route]
    out[route] = errno_of(call)
    if route == "F_SETOWN_EX":  # F_SETSIG as well, so that this socket would send SIGKILL
        errno_of(lambda: fcntl.fcntl(fd, 10, int(signal.SIGKILL)))
    out.setdefault("async_on", []).append(errno_of(
        lambda: fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_ASYNC | os.O_NONBLOCK)))
    b.send(b"x")
time.sleep(0.3)
out["owners"] = [fcntl.fcntl(a.fileno(), 9) for a, _ in held]  # F_GETOWN: 0, none was ever set
out["victim_alive"] = os.waitpid(victim, os.WNOHANG) == (0, 0)
os.kill(victim, signal.SIGKILL)
os.waitpid(victim, 0)
a, b = socket.socketpair()
out["ordinary"] = [
    errno_of(lambda: fcntl.fcntl(a, 10 + 1)),  # F_GETSIG
    errno_of(lambda: fcntl.fcntl(a, 9)),  # F_GETOWN
    errno_of(lambda: fcntl.ioctl(a, 0x5421, struct.pack("i", 1))),  # FIONBIO
    errno_of(lambda: fcntl.ioctl(a, 0x5452, struct.pack("i", 1))),  # FIOASYNC (no owner: no signal)
    errno_of(lambda: fcntl.ioctl(a, 0x8903, struct.pack("i", 0))),  # FIOGETOWN
    errno_of(lambda: fcntl.fcntl(a, fcntl.F_SETFD, fcntl.FD_CLOEXEC)),
    errno_of(lambda: fcntl.fcntl(a, 1030)),  # F_DUPFD_CLOEXEC
]
print(json.dumps(out))
"""
)

EXPECTED = {
    **dict.fromkeys(ROUTES, EPERM),
    "async_on": [0] * len(ROUTES),
    "owners": [0] * len(ROUTES),
    "victim_alive": True,
    "ordinary": [0] * 7,
}

# What CPython does all day: asyncio (its self-pipe, signal wakeup fd, a TCP echo and a subprocess),
# subprocess, multiprocessing (fork and spawn), selectors, socket timeouts. Prints one JSON list.
ORDINARY = r"""
import asyncio, json, multiprocessing, selectors, socket, subprocess, sys

async def echo(reader, writer):
    writer.write(await reader.readline())
    await writer.drain()
    writer.close()

async def main():
    server = await asyncio.start_unix_server(echo, "echo.sock")  # loopback may be down (unshare)
    reader, writer = await asyncio.open_unix_connection("echo.sock")
    writer.write(b"ping\n")
    line = await reader.readline()
    writer.close()
    server.close()
    proc = await asyncio.create_subprocess_exec(sys.executable, "-c", "print(6 * 7)", stdout=asyncio.subprocess.PIPE)
    printed, _ = await proc.communicate()
    return [line.decode().strip(), printed.decode().strip()]

def square(x):
    return x * x

if __name__ == "__main__":
    got = asyncio.run(main())
    got.append(subprocess.run([sys.executable, "-c", "print('sub')"], capture_output=True, text=True).stdout.strip())
    for method in ("fork", "spawn"):
        with multiprocessing.get_context(method).Pool(2) as pool:
            got.append(sum(pool.map(square, range(5))))
    a, b = socket.socketpair()
    a.settimeout(2.0)
    b.sendall(b"sel")
    with selectors.DefaultSelector() as sel:
        sel.register(a, selectors.EVENT_READ)
        got.append(len(sel.select(2.0)))
    got.append(a.recv(3).decode())
    print(json.dumps(got))
"""
ORDINARY_EXPECTED = ["ping", "42", "sub", 30, 30, 1, "sel"]

# A code-verifier completion: every route aimed at the supervisor (our parent) with SIGKILL, SIGSTOP and
# SIGINT, then the right answer. With the routes closed the supervisor never hears of it: full score.
ATTACK_THEN_ANSWER = r"""
import fcntl, os, signal, socket, struct
_held = []
for sig in (signal.SIGKILL, signal.SIGSTOP, signal.SIGINT):
    for route in range(5):
        a, b = socket.socketpair()
        _held.append((a, b))
        pid, fd = os.getppid(), a.fileno()
        try:
            if route == 0:
                fcntl.fcntl(fd, 8, pid)
            elif route == 1:
                fcntl.fcntl(fd, 15, struct.pack("ii", 1, pid))
            elif route == 2:  # F_OWNER_PGRP: the supervisor's whole process group
                fcntl.fcntl(fd, 15, struct.pack("ii", 2, os.getpgid(pid)))
            else:
                fcntl.ioctl(fd, 0x8901 if route == 3 else 0x8902, struct.pack("i", pid))
        except OSError:
            pass
        try:
            fcntl.fcntl(fd, 10, int(sig))
        except OSError:
            pass
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_ASYNC | os.O_NONBLOCK)
        b.send(b"x")

def f(x):
    return 2 * x + 1
"""
REFERENCE = "assert f(2) == 5\nassert f(10) == 21\nfor x in range(20):\n    assert f(x) == 2 * x + 1\n"
CLEAN = "def f(x):\n    return 2 * x + 1\n"
CLEAN_WRONG = "def f(x):\n    return 2 * x\n"
