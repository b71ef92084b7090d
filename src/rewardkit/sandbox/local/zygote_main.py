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
"""

import ctypes
import fcntl
import gc
import json
import os
import resource
import socket
import sys

HARNESS, SCRATCH, PRIVATE, CTRL_FD, SECCOMP_HEX = sys.argv[1:6]
sys.path.insert(0, HARNESS)

import code_io_cases
import code_procs
import code_runner
import code_supervisor
import seccomp_bpf

sys.path[:] = [p for p in sys.path if p != HARNESS]

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWPID = 0x00020000, 0x04000000, 0x08000000, 0x20000000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 2, 4, 8, 0x4000, 0x40000
LIBC = ctypes.CDLL(None, use_errno=True)
CTRL = socket.socket(fileno=int(CTRL_FD))
PID_NS = os.open("/proc/self/ns/pid", os.O_RDONLY)
LOAD_FILTER = seccomp_bpf.filter_installer(bytes.fromhex(SECCOMP_HEX)) if SECCOMP_HEX != "-" else None
# A run's tmpfs mounts hide the harness dir when it lies under one of them (``unshare`` isolation, where
# the zygote's dir is the host's temp dir): then each run gets the harness files in its scratch dir.
HIDDEN = any(HARNESS == d or HARNESS.startswith(d.rstrip("/") + "/") for d in [SCRATCH, *PRIVATE.split(",")] if d)
HARNESS_SOURCES = {}
for _name in os.listdir(HARNESS) if HIDDEN else ():
    if _name.startswith("code_") and _name.endswith(".py"):
        with open(os.path.join(HARNESS, _name), "rb") as _fh:
            HARNESS_SOURCES[_name] = _fh.read()
RUN_HARNESS = SCRATCH if HIDDEN else HARNESS  # where a run's exec'd runner is started from
RLIMITS = {
    "cpu": resource.RLIMIT_CPU,
    "as": resource.RLIMIT_AS,
    "nproc": resource.RLIMIT_NPROC,
    "fsize": resource.RLIMIT_FSIZE,
    "nofile": resource.RLIMIT_NOFILE,
    "core": resource.RLIMIT_CORE,
}


def _check(result, what):
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def _mount(source, target, fstype, flags, data=None):
    _check(
        LIBC.mount(
            source and source.encode(),
            target.encode(),
            fstype and fstype.encode(),
            ctypes.c_ulong(flags),
            data and data.encode(),
        ),
        f"mount {target}",
    )


def _write_files(names, fds):
    files = dict(HARNESS_SOURCES)
    for name, fd in zip(names, fds, strict=False):
        chunks = []
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


def _close_all_but(keep):
    """Close every fd above 2 but ``keep``: one ``close_range`` per gap (Python uses it where it exists)."""
    low = 3
    for fd in sorted(k for k in keep if k >= 3):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, os.sysconf("SC_OPEN_MAX"))  # no fd of ours lies above the limit: it never went down


def _hand_over(sock, pid):
    """The supervisor's first start of the runner: send the pre-forked candidate process its argv and fds."""

    def start(args, stdin, stdout, stderr, keep):
        message = json.dumps({"args": list(args), "keep": list(keep)}).encode()
        try:
            socket.send_fds(sock, [message], [stdin, stdout, stderr, *keep])
        except OSError:
            return None  # it is gone: the supervisor execs one
        finally:
            sock.close()
        return pid

    return start


def _drop_privileges(uid):
    """The run's uid, no capabilities, for good (no_new_privs and the seccomp filter are already on)."""
    if uid is not None:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)  # from root to another uid: every capability is gone


def _wait_as_runner(sock, uid):
    """The pre-forked candidate process: hold nothing of the supervisor's, drop to the run's uid, wait for
    the first start of the runner, then be ``python3 -I -S -B code_runner.py PROGRAM READ WRITE``."""
    code = 1
    try:
        devnull = os.open(os.devnull, os.O_RDWR)
        os.dup2(devnull, 0)  # neither the job (stdin) nor the result channel (stdout)
        os.dup2(devnull, 1)
        _close_all_but((sock.fileno(),))
        os.setsid()
        _drop_privileges(uid)
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
        sys.argv = [os.path.join(RUN_HARNESS, "code_runner.py"), *request["args"][1:4]]
        sys.path.insert(0, RUN_HARNESS)
        code_runner.main()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # noqa: BLE001 - the runner's own failure ends its process, as an exec'd one would
        pass
    os._exit(code)


def _place_fds(mapping):
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


def _run_child(request, fds):
    """The run's PID 1: build its world, fork its first candidate process, drop to the run's uid, become its
    supervisor."""
    stdin_fd, stdout_fd, stderr_fd, go_fd = fds[:4]
    uid = request.get("uid")
    try:
        os.setsid()  # process group 1 of the run: a candidate's killpg(getpgid(1)) is kill(-1), as elsewhere
        _check(LIBC.unshare(CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS), "unshare")
        _mount(None, "/", None, MS_REC | MS_PRIVATE)
        _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        size = f"size={int(request['scratch_bytes'])},mode=1777"
        _mount("rk-scratch", SCRATCH, "tmpfs", MS_NOSUID | MS_NODEV, size)
        for directory in filter(None, PRIVATE.split(",")):
            if os.path.isdir(directory) and not os.path.islink(directory):
                _mount("rk-private", directory, "tmpfs", MS_NOSUID | MS_NODEV, size)
        _write_files(request["files"], fds[4:])
        adj = os.open("/proc/self/oom_score_adj", os.O_WRONLY)
        os.write(adj, b"1000")  # in the cgroup it shares with its zygote, the run is the OOM killer's choice
        os.close(adj)
        CTRL.sendmsg([b'{"op":"ready"}'])  # the host reads our pid from the socket's credentials
        if os.read(go_fd, 1) != b"1":
            os._exit(125)
        for fd, target in ((stdin_fd, 0), (stdout_fd, 1), (stderr_fd, 2)):
            os.dup2(fd, target)
        _close_all_but(())
        os.chdir(SCRATCH)
        os.environ.clear()
        os.environ.update(request["env"])
        for name, value in request["rlimits"].items():
            resource.setrlimit(RLIMITS[name], (value[0], value[1]))
        _check(LIBC.prctl(38, 1, 0, 0, 0), "no_new_privs")
        if LOAD_FILTER is not None:
            LOAD_FILTER()  # once, still as root: the candidate process forked next inherits it
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        runner = os.fork()
        if runner == 0:
            ours.close()
            _wait_as_runner(theirs, uid)
        theirs.close()
        _drop_privileges(uid)
    except BaseException as exc:  # noqa: BLE001 - a failure to build the run is the sandbox's, first stderr line
        os.write(stderr_fd, f"rk-zygote: {type(exc).__name__}: {exc}\n".encode())
        os._exit(125)
    runner_path = os.path.join(RUN_HARNESS, "code_runner.py")  # read-only: a later start execs it from there
    code_procs.PRESTARTED[:] = [(runner_path, _hand_over(ours, runner))]
    code_supervisor.HERE = SCRATCH
    code_supervisor.PROGRAM = code_io_cases.PROGRAM = os.path.join(SCRATCH, "program.py")
    code_supervisor.RUNNER = runner_path
    sys.path.insert(0, SCRATCH)
    code_supervisor.main()
    os._exit(0)


def _serve_run(request, fds):
    _check(LIBC.unshare(CLONE_NEWPID), "unshare(CLONE_NEWPID)")
    try:
        pid = os.fork()
        if pid == 0:
            try:
                _run_child(request, fds)
            finally:
                os._exit(125)
    finally:
        _check(LIBC.setns(PID_NS, CLONE_NEWPID), "setns")  # our next fork must start a namespace again
        for fd in fds:
            os.close(fd)
    _, status = os.waitpid(pid, 0)
    return status


def main():
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
