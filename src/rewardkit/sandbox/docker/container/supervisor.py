"""The in-container supervisor of the docker sandbox (stdlib only; sent as ``python3 -c`` source, with
``seccomp_bpf.py``, ``run_world.py`` and ``run_init.py`` prepended).

It runs as root inside the container, whose capability set is only what building a run's world takes
(SETUID, SETGID, KILL, SYS_ADMIN, NET_ADMIN, SETPCAP). One long-lived supervisor per container reads requests
from stdin and answers on stdout, each message an 8-byte big-endian length followed by JSON.

Per run (``run``): the command is forked as PID 1 of namespaces of its own (``run_init.py``), which writes
the files root-owned and read-only into its fresh scratch dir, hands us that dir (for ``collect``), drops to
the container's run uid with no capabilities, rlimits and the seccomp deny list, and execs the command. We
say ``started`` to the host, feed stdin, read stdout/stderr up to the output cap and enforce the wall clock;
when the command (PID 1) ends, every process of the run dies with its namespace. A run after which a process
is still alive in the container is reported (``clean`` false), and the host replaces the container.
"""

import base64
import json
import os
import resource
import select
import signal
import socket
import struct
import time
from collections.abc import Callable, Mapping
from typing import Any

if "fork_run" not in globals():  # on the host; in a container the other modules are prepended
    from rewardkit.sandbox.docker.container.run_init import (
        RUN_SCRATCH,
        become_run_uid,
        build_world,
        fork_run,
        read_collected,
        receive_fd,
        send_fd,
    )
    from rewardkit.sandbox.run_world import drop_bounding_set
    from rewardkit.sandbox.seccomp_bpf import deny_filter, filter_installer

OOM_CONTROL = "/sys/fs/cgroup/memory/memory.oom_control"
OOM_EVENTS_V2 = "/sys/fs/cgroup/memory.events"
STARTED = {"started": True}
WORLD: dict[str, Any] = {"scratch_bytes": 64 << 20, "shm_bytes": 16 << 20, "filter": None, "filtered": False}


def prepare_filter() -> None:
    """The seccomp deny list, assembled once before any fork; False where this Python or machine has none. Also
    empties our capability bounding set, once for every run (what we hold now is unaffected)."""
    drop_bounding_set()
    try:
        raw = deny_filter()
        WORLD["filter"] = filter_installer(raw) if raw is not None else None
    except ImportError:  # no ctypes
        WORLD["filter"] = None
    WORLD["filtered"] = WORLD["filter"] is not None


def read_exact(fd: int, n: int) -> bytes:
    chunks: list[bytes] = []
    while n > 0:
        chunk = os.read(fd, min(n, 1 << 20))
        if not chunk:
            raise EOFError("request truncated")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def oom_kills() -> int:
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


def set_limits(limits: dict[str, Any]) -> None:
    cpu = max(1, int(limits["cpu_time"] + 0.999))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_AS, (limits["memory_bytes"], limits["memory_bytes"]))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits["max_file_bytes"], limits["max_file_bytes"]))
    resource.setrlimit(resource.RLIMIT_NOFILE, (limits["max_open_files"], limits["max_open_files"]))
    resource.setrlimit(resource.RLIMIT_NPROC, (limits["max_processes"], limits["max_processes"]))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def write_files(scratch: str, files: Mapping[str, str | bytes]) -> None:
    """As root: the run's files are read-only and root-owned in its sticky scratch dir, so the program can add
    files next to them but cannot edit, replace or delete them."""
    for rel, b64 in files.items():  # base64 text from the host, or bytes the supervisor holds
        path = os.path.normpath(os.path.join(scratch, rel))
        if not path.startswith(scratch + "/"):
            raise ValueError(f"file path escapes the scratch dir: {rel!r}")
        parent = os.path.dirname(path)
        missing: list[str] = []
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


def run_scratch_bytes(req: dict[str, Any]) -> int:
    """The size of a run's scratch tmpfs: its own ``max_scratch_bytes``, as the local backend gives each run (a
    compile step asks for more than a judged program), else the container's."""
    return int(req.get("limits", {}).get("max_scratch_bytes") or WORLD["scratch_bytes"])


def start_program(
    req: dict[str, Any], stdin_fd: int, out_w: int, err_w: int, scratch_sock: socket.socket | None = None
) -> tuple[int, str | None]:
    """Fork the command as PID 1 of a run of its own; return (pid, None) or (pid, why it could not start),
    learnt through a CLOEXEC pipe (never from the program's own output, which it could forge). With
    ``scratch_sock``, the run's PID 1 sends its scratch dir through it first (for ``collect``)."""
    report_r, report_w = os.pipe2(os.O_CLOEXEC)

    def child() -> None:
        try:
            build_world(run_scratch_bytes(req), WORLD["shm_bytes"])
            write_files(RUN_SCRATCH, req["files"])
            if scratch_sock is not None:
                send_fd(scratch_sock, os.open(RUN_SCRATCH, os.O_RDONLY | os.O_DIRECTORY))
            os.dup2(stdin_fd, 0)
            os.dup2(out_w, 1)
            os.dup2(err_w, 2)
            os.closerange(3, report_w)
            os.closerange(report_w + 1, 1 << 16)
            os.setsid()
            os.chdir(RUN_SCRATCH)
            become_run_uid(req["uid"], req["gid"], lambda: set_limits(req["limits"]), WORLD["filter"])
            signal.signal(signal.SIGPIPE, signal.SIG_DFL)
            env = dict(req["env"], HOME=RUN_SCRATCH)
            os.execvpe(req["command"][0], req["command"], env)
        except BaseException as exc:  # noqa: BLE001 - report it and leave; never return into the parent code
            try:
                os.write(report_w, f"cannot start {req['command'][0]!r}: {exc}".encode()[:4000])
            finally:
                os._exit(127)

    pid = fork_run(child)
    os.close(report_w)
    message = b""
    while True:
        chunk = os.read(report_r, 4096)
        if not chunk:
            break
        message += chunk
    os.close(report_r)
    return pid, (message.decode(errors="replace") or None)


def pump(
    pid: int,
    out_r: int,
    err_r: int,
    in_w: int,
    data: bytes,
    limits: dict[str, Any],
    started: float,
    poll: Callable[[], tuple[int, int]] | None = None,
) -> tuple[int | None, bytearray, bytearray, str | None]:
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
    status: int | None = None
    exited_at = 0.0  # set with status, and read only once status is
    why: str | None = None
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


def drain(out_r: int, out: bytearray, err_r: int, err: bytearray, cap: int) -> str | None:
    """Read what is left in the pipes once every writer is dead; "output" if that passes the cap."""
    why: str | None = None
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


def run(req: dict[str, Any], say: Callable[[dict[str, Any]], None], spare: tuple[int, ...] = ()) -> dict[str, Any]:
    """One exec run: ``say(message)`` tells the host it started; the answer to send when it is over."""
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET) if req["collect"] else (None, None)
    ooms = oom_kills()
    started = time.monotonic()
    pid, start_error = start_program(req, in_r, out_w, err_w, theirs)
    for fd in (in_r, out_w, err_w):
        os.close(fd)
    scratch_fd: int | None = None
    if ours is not None and theirs is not None:  # made together: both or neither
        theirs.close()
        scratch_fd = receive_fd(ours) if start_error is None else None
        ours.close()
    if start_error is None:
        say(STARTED)
    data = base64.b64decode(req.get("stdin") or "")
    status, out, err, why = pump(pid, out_r, err_r, in_w, data, req["limits"], started)
    duration = time.monotonic() - started
    if status is None:
        os.kill(pid, signal.SIGKILL)  # the run's PID 1: its whole namespace dies with it
        _, status = os.waitpid(pid, 0)
    if why != "output":
        why = drain(out_r, out, err_r, err, req["limits"]["max_output_bytes"]) or why
    os.close(out_r)
    os.close(err_r)
    files: dict[str, bytes] = {}
    if scratch_fd is not None:
        files = read_collected(scratch_fd, req["collect"], req["limits"]["max_output_bytes"])
        os.close(scratch_fd)
    left = stray_processes(spare)
    return run_answer(status, out, err, why, duration, ooms, files, start_error, left)


def stray_processes(spare: tuple[int, ...] = ()) -> list[str]:
    """Live processes of the container but PID 1 (its reaper), this one and ``spare``: none, once a run's
    namespace is gone."""
    found: list[str]
    me, found = os.getpid(), []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) not in (1, me, *spare) and not _zombie(entry):
            found.append(f"pid:{entry}")
    return found


def _zombie(pid: str) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] in (b"Z", b"X")
    except (OSError, IndexError):
        return True  # gone already


def read_to_end(fd: int) -> bytearray:
    raw = bytearray()
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            break
        raw += chunk
    os.close(fd)
    return raw


def run_answer(
    status: int,
    out: bytearray,
    err: bytearray,
    why: str | None,
    duration: float,
    ooms: int,
    files: dict[str, bytes],
    start_error: str | None,
    left: list[str],
) -> dict[str, Any]:
    """The answer for one finished run (both supervisors send it); ``left``: what the run left alive."""
    return {
        "exit_code": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
        "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
        "stdout": base64.b64encode(bytes(out)).decode(),
        "stderr": base64.b64encode(bytes(err)).decode(),
        "duration": duration,
        "timed_out": why == "timeout",
        "output_truncated": why == "output",
        "oom_killed": oom_kills() > ooms,
        "files": {name: base64.b64encode(data).decode() for name, data in files.items()},
        "clean": not left,
        "guarded": WORLD["filtered"],
        "start_error": start_error,
        "leftovers": left[:20],
    }


def write_message(fd: int, message: dict[str, Any]) -> None:
    data = json.dumps(message).encode()
    view = memoryview(struct.pack(">Q", len(data)) + data)
    while view:
        view = view[os.write(fd, view) :]


def read_message(fd: int) -> Any:
    return json.loads(read_exact(fd, struct.unpack(">Q", read_exact(fd, 8))[0]))


def configure(init: dict[str, Any]) -> None:
    """The container's sizes, from the host's first message."""
    WORLD.update(scratch_bytes=int(init["scratch_bytes"]), shm_bytes=int(init["shm_bytes"]))


def world_problem() -> str | None:
    """Build one run's world and drop to an unprivileged uid, as every run will: None, or what failed (a host
    whose security profile refuses mounts or namespaces in containers, say)."""
    report_r, report_w = os.pipe()

    def child() -> None:
        try:
            build_world(WORLD["scratch_bytes"], WORLD["shm_bytes"])
            become_run_uid(65534, 65534, lambda: None, WORLD["filter"])
        except BaseException as exc:  # noqa: BLE001 - reported to the host, which refuses the container
            os.write(report_w, f"{type(exc).__name__}: {exc}".encode()[:2000])
        os._exit(0)

    pid = fork_run(child)
    os.close(report_w)
    message = read_to_end(report_r)
    os.waitpid(pid, 0)
    return message.decode(errors="replace") or None


def main() -> None:
    """Serve requests until stdin closes: one long-lived supervisor per container saves a docker exec per run."""
    prepare_filter()
    try:
        configure(read_message(0))
    except EOFError:
        return
    problem = world_problem()
    write_message(1, {"ready": problem is None, "error": problem, "guarded": WORLD["filtered"], "harness": False})
    if problem is not None:
        return
    while True:
        try:
            req = read_message(0)
        except EOFError:
            return
        try:
            result = run(req, lambda message: write_message(1, message))
        except Exception as exc:  # noqa: BLE001 - answer, and let the host replace this container
            result = {"supervisor_error": f"{type(exc).__name__}: {exc}"}
        write_message(1, result)
