"""The warm zygote of the ``local`` sandbox (plain stdlib, runs INSIDE the sandbox's outer isolation).

Started once per worker as ``python3 -I -S -B local_zygote_main.py DIR SCRATCH PRIVATE CTRL_FD SECCOMP_HEX``
inside bubblewrap or ``unshare`` (no network, its own PID/IPC/UTS/mount namespaces), as root with only the
capabilities it needs to build a run (SYS_ADMIN, SETUID, SETGID, KILL). It imports the code harness once,
then serves runs from the host over a SOCK_SEQPACKET socket (``CTRL_FD``) and never reads a job itself:
the job, the program and the result channel travel as fds the zygote hands on unread, so no fork of it
holds another run's tests, nonce or program.

Per run (``_serve_run``): ``unshare(CLONE_NEWPID)`` then fork, so the run's first process (the supervisor)
is PID 1 of a PID namespace of its own and every process of the run dies with it. That process makes its
own mount, IPC and UTS namespaces, remounts ``/proc``, mounts a fresh size-capped tmpfs as its scratch dir
(and over every other world-writable dir), writes the files, tells the host it is ready (the host reads
its pid from the socket's credentials), waits for the host's "go", takes the run's stdin/stdout/stderr, a
clean environment, rlimits, no_new_privs and the seccomp deny list, forks the run's first candidate
process, drops to the run's uid (no capabilities) and only then runs ``code_supervisor.main()``, which
reads the job from stdin.

The candidate process is forked before the job was read, so it holds neither tests nor nonce; it drops
to the run's uid at once and waits on a socket for the supervisor's first start of the runner
(``code_procs.PRESTARTED``), which hands it its argv and fds; then it runs ``code_runner.main()``. A later
start (after a crash) and every stdin/stdout program are exec'd as a fresh interpreter, as in the
fork-exec path. Two forks per run in all: the supervisor and the candidate process.

A run of another warm program (``request["entry"]``: ``native_build`` or ``native_judge``, imported from the
same dir when the warm program carries them) gets the same world, then that module's ``main()`` as the run's
uid instead of the supervisor (no pre-forked candidate process: the module forks what it starts).
"""

import fcntl
import gc
import json
import os
import resource
import socket
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NoReturn

HARNESS, SCRATCH, PRIVATE, CTRL_FD, SECCOMP_HEX = sys.argv[1:6]
sys.path.insert(0, HARNESS)

import code_case_runner
import code_invariants
import code_io_cases
import code_procs
import code_runner
import code_supervisor
import run_world
import seccomp_bpf

# The native languages' build and judge, where the warm program has them (see ``WarmProgram.more``)
NATIVE = {n: __import__(n) for n in ("native_build", "native_judge") if os.path.isfile(f"{HARNESS}/{n}.py")}
from run_world import CLONE_NEWPID, MS_BIND, MS_NODEV, MS_NOEXEC, MS_NOSUID, MS_RDONLY, MS_REMOUNT, check, mount

sys.path[:] = [p for p in sys.path if p != HARNESS]

LIBC = run_world.LIBC
CTRL = socket.socket(fileno=int(CTRL_FD))
PID_NS = os.open("/proc/self/ns/pid", os.O_RDONLY)
LOAD_FILTER = seccomp_bpf.filter_installer(bytes.fromhex(SECCOMP_HEX)) if SECCOMP_HEX != "-" else None
# A run's tmpfs mounts hide the harness dir when it lies under one of them (``unshare`` isolation, where the
# zygote's dir is the host's temp dir): then each run binds it back, read-only, at the same path, so that the
# modules imported from it keep their files and the runner a later start execs is the zygote's own.
HIDDEN = any(HARNESS == d or HARNESS.startswith(d.rstrip("/") + "/") for d in [SCRATCH, *PRIVATE.split(",")] if d)
# Under ``unshare`` the run sees the host's /sys: the zygote's cgroup (shared by its runs: memory high-water
# mark, OOM and task counters) is hidden under an empty read-only tmpfs.
MASKED = ("/sys/fs/cgroup",) if SCRATCH == "/tmp" else ()
RLIMITS = {
    "cpu": resource.RLIMIT_CPU,
    "as": resource.RLIMIT_AS,
    "nproc": resource.RLIMIT_NPROC,
    "fsize": resource.RLIMIT_FSIZE,
    "nofile": resource.RLIMIT_NOFILE,
    "core": resource.RLIMIT_CORE,
}


def _write_files(names: list[str], fds: list[int]) -> None:
    files: dict[str, bytes] = {}
    for name, fd in zip(names, fds, strict=False):
        chunks: list[bytes] = []
        while True:
            block = os.read(fd, 1 << 20)
            if not block:
                break
            chunks.append(block)
        files[name] = b"".join(chunks)
    for name, data in sorted(files.items()):
        path = os.path.join(SCRATCH, name)
        parent = os.path.dirname(path)
        if not os.path.isdir(parent):
            os.makedirs(parent, mode=0o1777)
            os.chmod(parent, 0o1777)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.close(fd)


def _bind_harness_back(held: int) -> None:
    """Under ``unshare``: the harness dir at its own path again (root-owned, read-only), before any candidate;
    ``held`` is an fd on it opened in the run's mount namespace before the tmpfs hid it."""
    parent = os.path.dirname(HARNESS)
    if not os.path.isdir(parent):
        os.makedirs(parent, mode=0o755)
    os.mkdir(HARNESS, 0o555)
    mount(f"/proc/self/fd/{held}", HARNESS, None, MS_BIND)
    mount(None, HARNESS, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
    os.close(held)


def _close_all_but(keep: Iterable[int]) -> None:
    """Close every fd above 2 but ``keep``: one ``close_range`` per gap (Python uses it where it exists)."""
    low = 3
    for fd in sorted(k for k in keep if k >= 3):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, os.sysconf("SC_OPEN_MAX"))  # no fd of ours lies above the limit: it never went down


def _hand_over(sock: socket.socket, pid: int) -> Callable[[Sequence[str], int, int, int, Sequence[int]], int | None]:
    """The supervisor's first start of the runner: send the pre-forked candidate process its argv and fds."""

    def start(args: Sequence[str], stdin: int, stdout: int, stderr: int, keep: Sequence[int]) -> int | None:
        message = json.dumps({"args": list(args), "keep": list(keep)}).encode()
        try:
            socket.send_fds(sock, [message], [stdin, stdout, stderr, *keep])
        except OSError:
            return None  # it is gone: the supervisor execs one
        finally:
            sock.close()
        return pid

    return start


def _wait_as_runner(sock: socket.socket, uid: int | None) -> NoReturn:
    """The pre-forked candidate process: hold nothing of the supervisor's, drop to the run's uid, wait for
    the first start of the runner, then be ``python3 -I -S -B code_runner.py PROGRAM READ WRITE``."""
    code = 1
    try:
        devnull = os.open(os.devnull, os.O_RDWR)
        os.dup2(devnull, 0)  # neither the job (stdin) nor the result channel (stdout)
        os.dup2(devnull, 1)
        _close_all_but((sock.fileno(),))
        os.setsid()
        run_world.drop_privileges(uid)
        LIBC.prctl(4, 1, 0, 0, 0)  # dumpable again, as an exec'd process of its own uid (PR_SET_DUMPABLE)
        try:
            message, fds, _, _ = socket.recv_fds(sock, 65536, 16)
        except OSError:
            os._exit(0)
        if not message:
            os._exit(0)
        sock.close()
        request = json.loads(message)
        targets = [0, 1, 2, *request["keep"]]
        if len(fds) != len(targets):
            os._exit(1)
        _place_fds(dict(zip(targets, fds, strict=False)))
        script = os.path.basename(request["args"][0])  # one of code_procs.PRESTARTABLE
        sys.argv = [os.path.join(HARNESS, script), *request["args"][1:4]]
        if script == "code_case_runner.py":
            code_case_runner.main()  # the warm process of stdin/stdout cases
        else:
            sys.path.insert(0, HARNESS)
            code_runner.main()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # noqa: BLE001 - the runner's own failure ends its process, as an exec'd one would
        pass
    os._exit(code)


def _place_fds(mapping: dict[int, int]) -> None:
    """Make ``mapping`` (target fd -> received fd) this process's only open fds, inheritable as a spawned
    child's are."""
    top = max(mapping)
    high = {target: fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, top + 1) for target, fd in mapping.items()}
    for fd in mapping.values():
        os.close(fd)
    for target, fd in high.items():
        os.dup2(fd, target)
        os.close(fd)
    _close_all_but(set(mapping))


def _run_child(request: dict[str, Any], fds: list[int]) -> NoReturn:
    """The run's PID 1: build its world, fork its first candidate process, drop to the run's uid, become its
    supervisor."""
    stdin_fd, stdout_fd, stderr_fd, go_fd = fds[:4]
    uid = request.get("uid")
    try:
        os.setsid()  # process group 1 of the run: a candidate's killpg(getpgid(1)) is kill(-1), as elsewhere
        run_world.enter_namespaces(network=False)  # the zygote's, unused (see _serve_run)
        held = os.open(HARNESS, os.O_PATH | os.O_DIRECTORY) if HIDDEN else None  # in this namespace's copy
        mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        run_world.limit_ipc()
        scratch_bytes = int(request["scratch_bytes"])
        run_world.mount_tmpfs(SCRATCH, scratch_bytes)
        for directory in filter(None, PRIVATE.split(",")):
            if os.path.isdir(directory) and not os.path.islink(directory):
                run_world.mount_tmpfs(directory, scratch_bytes, "rk-private")
        for path in MASKED:
            run_world.mask(path)
        if held is not None:
            _bind_harness_back(held)
        _write_files(request["files"], fds[4:])
        run_world.raise_oom_score()
        CTRL.sendmsg([b'{"op":"ready"}'])  # the host reads our pid from the socket's credentials
        if os.read(go_fd, 1) != b"1":
            os._exit(125)
        for fd, target in ((stdin_fd, 0), (stdout_fd, 1), (stderr_fd, 2)):
            os.dup2(fd, target)
        stderr_fd = 2  # a failure from here on is told there: the originals close next
        _close_all_but(())
        os.chdir(SCRATCH)
        os.environ.clear()
        os.environ.update(request["env"])
        for name, value in request["rlimits"].items():
            resource.setrlimit(RLIMITS[name], (value[0], value[1]))
        run_world.no_new_privs()
        if LOAD_FILTER is not None:
            LOAD_FILTER()  # once, still as root: the candidate process forked next inherits it
        entry = request.get("entry", "code_supervisor")
        native = NATIVE.get(entry)
        if native is None and entry != "code_supervisor":
            raise ValueError(f"no warm program {entry!r} here (this zygote has code_supervisor, {sorted(NATIVE)})")
        if native is None:
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            runner = os.fork()
            if runner == 0:
                ours.close()
                _wait_as_runner(theirs, uid)
            theirs.close()
        run_world.drop_privileges(uid)
    except BaseException as exc:  # noqa: BLE001 - a failure to build the run is the sandbox's, first stderr line
        os.write(stderr_fd, f"rk-zygote: {type(exc).__name__}: {exc}\n".encode())
        os._exit(125)
    if native is not None:
        _run_native(native)
    runner_path = os.path.join(HARNESS, "code_runner.py")  # read-only: a later start execs it from there
    code_procs.PRESTARTED[:] = [(runner_path, _hand_over(ours, runner), runner)]
    code_supervisor.PROGRAM = code_io_cases.PROGRAM = os.path.join(SCRATCH, "program.py")
    code_supervisor.RUNNER = runner_path
    code_supervisor.main()
    os._exit(0)


def _run_native(module: Any) -> NoReturn:
    """A native build or judge run: the module's ``main()`` in the scratch dir, as its own script would run it
    (it forks whatever it starts; its exit status is the run's)."""
    code = 1
    try:
        sys.argv = [os.path.join(HARNESS, module.__name__ + ".py")]
        code = module.main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException as exc:  # noqa: BLE001 - told on stderr, as an exec'd script's traceback would be
        os.write(2, f"{type(exc).__name__}: {exc}\n".encode())
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # noqa: BLE001 - its streams are the run's: a closed one ends it all the same
        pass
    os._exit(code if isinstance(code, int) else 0)


def _serve_run(request: dict[str, Any], fds: list[int]) -> int:
    check(LIBC.unshare(CLONE_NEWPID), "unshare(CLONE_NEWPID)")
    try:
        pid = os.fork()
        if pid == 0:
            try:
                _run_child(request, fds)
            finally:
                os._exit(125)
    finally:
        check(LIBC.setns(PID_NS, CLONE_NEWPID), "setns")  # our next fork must start a namespace again
        for fd in fds:
            os.close(fd)
    _, status = os.waitpid(pid, 0)
    run_world.fresh_network()  # the next run gets a network namespace no run has used
    return status


def main() -> None:
    run_world.drop_bounding_set()  # once, for every run (what we hold now is unaffected; a run inherits none)
    run_world.new_network()  # runs share it while none uses it: a new one per run costs milliseconds of kernel time
    # what no run can change, noted once: each run checks only the rest (and what lies under its own mounts)
    code_invariants.precheck((os.path.join(HARNESS, "code_runner.py"),), (SCRATCH, *PRIVATE.split(",")))
    gc.collect()
    LIBC.malloc_trim(0)  # fewer resident pages: less for each fork to copy the page tables of and unmap
    gc.freeze()  # every fork would otherwise copy the pages the collector writes to (copy-on-write)
    CTRL.send(json.dumps({"op": "hello", "pid": os.getpid()}).encode())
    while True:
        message, fds, _, _ = socket.recv_fds(CTRL, 65536, 64)
        if not message:
            os._exit(0)
        request = json.loads(message)
        if request.get("op") != "run" or len(fds) != 4 + len(request.get("files", ())):
            os._exit(3)
        try:
            status = _serve_run(request, fds)
            CTRL.send(json.dumps({"op": "exit", "status": status}).encode())
        except OSError as exc:
            CTRL.send(json.dumps({"op": "error", "error": str(exc)}).encode())


if __name__ == "__main__":
    main()
