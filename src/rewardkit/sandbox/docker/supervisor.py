"""The in-container supervisor of the docker sandbox (stdlib only; sent as ``python3 -c`` source, with
``seccomp.py`` prepended).

It runs as root inside the container, whose capability set is only SETUID, SETGID and KILL: enough to
drop to the run's unprivileged uid, and to kill and wipe whatever that uid left. One long-lived
supervisor per container reads requests from stdin and answers on stdout, each message an 8-byte
big-endian length followed by JSON.

Per run: the files are written root-owned and read-only into a sticky scratch dir; the program is forked
as the container's uid in its own session, with rlimits (CPU, address space, processes, file size, open
files, no core dumps), a raised OOM score and the seccomp signal guard. The supervisor feeds stdin, reads
stdout/stderr up to the output cap, enforces the wall clock, then kills every process in the container but
PID 1 and itself (daemons included), collects the requested files and wipes every place the uid can
write (/tmp, /dev/shm, /dev/mqueue, SysV IPC). A run after which that cannot be shown clean is reported,
and the host then replaces the container.
"""

import base64
import json
import os
import resource
import select
import signal
import struct
import time

if "install_signal_guard" not in globals():  # on the host; in a container seccomp.py is prepended
    from rewardkit.sandbox.docker.seccomp import (
        guard_program_for,
        install_signal_guard,
        prctl_function,
        signal_guard_available,
    )
    from rewardkit.sandbox.seccomp_bpf import AUDIT_ARCH
if "kill_everything" not in globals():  # likewise netstate.py and wipe.py
    from rewardkit.sandbox.docker.netstate import network_state
    from rewardkit.sandbox.docker.wipe import (
        NETWORK_BASELINE,
        WRITABLE_DIRS,
        collect_and_wipe,
        drop_privileges,
        kill_everything,
        leftovers,
        wipe,
    )

GUARD_AVAILABLE = signal_guard_available()
OOM_CONTROL = "/sys/fs/cgroup/memory/memory.oom_control"
OOM_EVENTS_V2 = "/sys/fs/cgroup/memory.events"


def read_exact(fd, n):
    chunks = []
    while n > 0:
        chunk = os.read(fd, min(n, 1 << 20))
        if not chunk:
            raise EOFError("request truncated")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def oom_kills():
    for path, key in ((OOM_CONTROL, "oom_kill"), (OOM_EVENTS_V2, "oom_kill")):
        try:
            with open(path) as fh:
                for line in fh:
                    name, _, value = line.partition(" ")
                    if name == key:
                        return int(value)
        except OSError:
            continue
    return 0


def set_limits(limits):
    cpu = max(1, int(limits["cpu_time"] + 0.999))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_AS, (limits["memory_bytes"], limits["memory_bytes"]))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits["max_file_bytes"], limits["max_file_bytes"]))
    resource.setrlimit(resource.RLIMIT_NOFILE, (limits["max_open_files"], limits["max_open_files"]))
    resource.setrlimit(resource.RLIMIT_NPROC, (limits["max_processes"], limits["max_processes"]))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def write_files(scratch, files):
    """As root: the run's files are read-only and root-owned in a sticky dir, so the program can add files
    next to them but cannot edit, replace or delete them."""
    os.mkdir(scratch)
    os.chmod(scratch, 0o1777)
    for rel, b64 in files.items():  # base64 text from the host, or bytes the supervisor holds
        path = os.path.normpath(os.path.join(scratch, rel))
        if not path.startswith(scratch + "/"):
            raise ValueError(f"file path escapes the scratch dir: {rel!r}")
        parent = os.path.dirname(path)
        missing = []
        while parent != scratch and not os.path.isdir(parent):
            missing.append(parent)
            parent = os.path.dirname(parent)
        for directory in reversed(missing):
            os.mkdir(directory)
            os.chmod(directory, 0o1777)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o444)
        try:
            view = memoryview(b64 if isinstance(b64, bytes) else base64.b64decode(b64))
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
        os.chmod(path, 0o444)


def start_program(req, stdin_fd, out_w, err_w):
    """Fork the command; return (pid, None) or (pid, why it could not start), learnt through a CLOEXEC pipe
    (never from the program's own output, which it could forge)."""
    report_r, report_w = os.pipe2(os.O_CLOEXEC)
    pid = os.fork()
    if pid == 0:
        try:
            os.dup2(stdin_fd, 0)
            os.dup2(out_w, 1)
            os.dup2(err_w, 2)
            os.closerange(3, report_w)
            os.closerange(report_w + 1, 1 << 16)
            os.setsid()
            with open("/proc/self/oom_score_adj", "w") as fh:
                fh.write("1000")
            drop_privileges(req["uid"], req["gid"])
            os.umask(0o022)
            os.chdir(req["scratch"])
            set_limits(req["limits"])
            install_signal_guard(os.getpid())
            signal.signal(signal.SIGPIPE, signal.SIG_DFL)
            env = dict(req["env"], HOME=req["scratch"])
            os.execvpe(req["command"][0], req["command"], env)
        except BaseException as exc:  # noqa: BLE001 - report it and leave; never return into the parent code
            try:
                os.write(report_w, f"cannot start {req['command'][0]!r}: {exc}".encode()[:4000])
            finally:
                os._exit(127)
    os.close(report_w)
    message = b""
    while True:
        chunk = os.read(report_r, 4096)
        if not chunk:
            break
        message += chunk
    os.close(report_r)
    return pid, (message.decode(errors="replace") or None)


def pump(pid, out_r, err_r, in_w, data, limits, started, poll=None):
    """Feed stdin, read stdout/stderr (each up to the cap) until the program exits or a limit hits.
    ``poll()`` gives (pid or 0, wait status) without blocking (default: ``waitpid`` of our child ``pid``).

    Returns (wait status or None, stdout, stderr, None | "timeout" | "output")."""
    poll = poll or (lambda: os.waitpid(pid, os.WNOHANG))
    cap = limits["max_output_bytes"]
    deadline = started + limits["wall_time"]
    bufs = {out_r: bytearray(), err_r: bytearray()}
    reads = [out_r, err_r]
    view = memoryview(data)
    writes = [in_w] if view else []
    if not view:
        os.close(in_w)
    else:
        os.set_blocking(in_w, False)
    status = exited_at = None
    why = None
    idle = 0.00025
    while True:
        now = time.monotonic()
        if now >= deadline:
            why = "timeout"
            break
        if status is None:
            got, st = poll()
            if got:
                status, exited_at = st, now
        if status is not None and (not reads or now - exited_at > 0.05):
            break  # after 50 ms, whatever still holds the pipes is something the program left behind
        if status is None and not reads:  # its pipes closed: its exit is usually a moment away, so poll soon
            idle = min(idle * 2, 0.05)
            wait = min(deadline - now, idle)
        else:
            wait = min(deadline - now, 0.05 if status is None else 0.01)
        ready_r, ready_w, _ = select.select(reads, writes, [], max(wait, 0))
        for fd in ready_w:
            try:
                view = view[os.write(fd, view[:65536]) :]
            except OSError:
                view = view[:0]
            if not view:
                writes.remove(fd)
                os.close(fd)
        for fd in ready_r:
            chunk = os.read(fd, 65536)
            if not chunk:
                reads.remove(fd)
                continue
            buf = bufs[fd]
            room = cap - len(buf)
            buf += chunk[: max(room, 0)]
            if len(chunk) > room:
                why = "output"
        if why is not None:
            break
    for fd in writes:
        os.close(fd)
    return status, bufs[out_r], bufs[err_r], why


def drain(out_r, out, err_r, err, cap):
    """Read what is left in the pipes once every writer is dead; "output" if that passes the cap."""
    why = None
    for fd, buf in ((out_r, out), (err_r, err)):
        os.set_blocking(fd, False)
        while True:
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                break
            if not chunk:
                break
            room = cap - len(buf)
            buf += chunk[: max(room, 0)]
            if len(chunk) > room:
                why = "output"
                break
    return why


def run(req):
    clean_before = kill_everything() and not leftovers()
    in_r, in_w = os.pipe()
    write_files(req["scratch"], req["files"])
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    ooms = oom_kills()
    started = time.monotonic()
    pid, start_error = start_program(req, in_r, out_w, err_w)
    for fd in (in_r, out_w, err_w):
        os.close(fd)
    data = base64.b64decode(req.get("stdin") or "")
    status, out, err, why = pump(pid, out_r, err_r, in_w, data, req["limits"], started)
    duration = time.monotonic() - started
    if status is None:
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    killed_all = kill_everything()
    if why != "output":
        why = drain(out_r, out, err_r, err, req["limits"]["max_output_bytes"]) or why
    os.close(out_r)
    os.close(err_r)
    result_r, result_w = os.pipe()
    try:
        helper = collect_and_wipe(req, result_w)
    except OSError:  # no fork (the pids cap still full): the root wipe below and the leftover check decide
        helper = None
    os.close(result_w)
    raw = read_to_end(result_r)
    if helper is not None:
        os.waitpid(helper, 0)
    kill_everything()
    for top in WRITABLE_DIRS:
        wipe(top)  # as root: what the helper could not remove is the run's own root-owned files and dirs
    left = leftovers()
    return run_answer(status, out, err, why, duration, ooms, raw, clean_before and killed_all, start_error, left)


def read_to_end(fd):
    raw = bytearray()
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            break
        raw += chunk
    os.close(fd)
    return raw


def run_answer(status, out, err, why, duration, ooms, raw_files, clean, start_error, left):
    """The answer for one finished run (both supervisors send it): ``raw_files`` is the collected files'
    JSON, ``clean`` whether the run was clean before it and every process of it was killed after."""
    try:
        files = json.loads(raw_files or b"{}")
    except ValueError:
        files = {}
    return {
        "exit_code": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
        "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
        "stdout": base64.b64encode(bytes(out)).decode(),
        "stderr": base64.b64encode(bytes(err)).decode(),
        "duration": duration,
        "timed_out": why == "timeout",
        "output_truncated": why == "output",
        "oom_killed": oom_kills() > ooms,
        "files": files,
        "clean": bool(clean and not left),
        "guarded": GUARD_AVAILABLE,
        "start_error": start_error,
        "leftovers": left[:20],
    }


def main():
    """Serve requests until stdin closes: one long-lived supervisor per container saves a docker exec per run."""
    if GUARD_AVAILABLE:
        guard_program_for(AUDIT_ARCH[os.uname().machine], 1)  # assembled once, before any fork
        prctl_function()
    NETWORK_BASELINE.update(network_state())
    while True:
        try:
            header = read_exact(0, 8)
        except EOFError:
            return
        req = json.loads(read_exact(0, struct.unpack(">Q", header)[0]))
        try:
            result = run(req)
        except Exception as exc:  # noqa: BLE001 - answer, and let the host replace this container
            result = {"supervisor_error": f"{type(exc).__name__}: {exc}"}
        data = json.dumps(result).encode()
        view = memoryview(struct.pack(">Q", len(data)) + data)
        while view:
            view = view[os.write(1, view) :]
