"""The pre-forked processes of one zygote run: the run's PID 1, which becomes its harness supervisor, and
the first candidate process (stdlib only; part of the in-container supervisor's source, see ``zygote.py``).

Both are forked BEFORE the run's request is read, by the zygote's template process, which never reads a
request: so neither holds anything of this run or of an earlier one (no nonce, no tests, no program).

* the run's PID 1 (``become_harness``) builds the run's world as root (``run_init.build_world``: namespaces
  of its own, fresh tmpfs), forks the candidate process, and waits for its setup (limits, environment, the
  program's files) on a pipe; it writes the files and the harness's own, drops to the container's run uid
  with no capabilities, and runs ``code_supervisor.main()`` of the harness modules the zygote imported at
  start, reading the job from its stdin as the exec'd supervisor does;
* the candidate process drops to the run uid at once and waits on a unix socket until the supervisor's first
  ``spawn_python`` of the runner hands it its argv and fds (``SCM_RIGHTS``); it then takes the rlimits and
  the clean environment, and runs ``code_runner.main()`` as the exec'd runner would. Later starts (after a
  crash) exec a fresh runner.
"""

import fcntl
import json
import os
import socket
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any, NoReturn

if "set_limits" not in globals():  # on the host; in a container the other modules are prepended
    from rewardkit.sandbox.docker.container.run_init import RUN_SCRATCH, become_run_uid, build_world, fork_run
    from rewardkit.sandbox.docker.container.supervisor import WORLD, read_exact, set_limits, write_files
    from rewardkit.sandbox.run_world import LIBC, drop_privileges

HARNESS_MODULES: dict[str, ModuleType] = {}  # name -> module, imported once by the zygote server
HARNESS_SOURCES: dict[str, bytes] = {}  # name -> bytes, written into each run's scratch dir


def prestart_harness(uid: int) -> dict[str, int]:
    """Fork the run's PID 1 (which forks its first candidate process); return its handles."""
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    setup_r, setup_w = os.pipe()
    report_r, report_w = os.pipe()

    def child() -> None:
        try:
            become_harness(uid, {0: in_r, 1: out_w, 2: err_w, 3: setup_r, 4: report_w})
        except BaseException as exc:  # noqa: BLE001 - report it; never return into the template's code
            try:
                os.write(4, f"cannot start the harness: {type(exc).__name__}: {exc}".encode()[:4000])
            finally:
                os._exit(127)
        os._exit(0)

    pid = fork_run(child)
    for fd in (in_r, out_w, err_w, setup_r, report_w):
        os.close(fd)
    return {
        "pid": pid,
        "in_w": in_w,
        "out_r": out_r,
        "err_r": err_r,
        "setup_w": setup_w,
        "report_r": report_r,
    }


def place_fds(mapping: dict[int, int]) -> None:
    """Make ``mapping`` (target fd -> current fd) this process's only open fds."""
    top = max(mapping)
    high = {target: fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, top + 1) for target, fd in mapping.items()}
    for target, fd in high.items():
        os.dup2(fd, target)  # inheritable, as a spawned child's fds are
    os.closerange(top + 1, 1 << 16)
    for fd in range(top + 1):
        if fd not in mapping:
            try:
                os.close(fd)
            except OSError:
                pass


def become_harness(uid: int, fds: dict[int, int]) -> NoReturn:
    place_fds(fds)
    os.setsid()
    build_world(WORLD["scratch_bytes"], WORLD["shm_bytes"])
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    runner = os.fork()
    if runner == 0:
        mine.close()
        wait_as_runner(theirs, uid)
    theirs.close()
    setup = json.loads(read_exact(3, int.from_bytes(read_exact(3, 8), "big")))
    os.close(3)
    write_files(RUN_SCRATCH, {**setup["files"], **HARNESS_SOURCES})
    os.chdir(RUN_SCRATCH)
    os.environ.clear()
    os.environ.update(setup["env"], HOME=RUN_SCRATCH)
    become_run_uid(uid, uid, lambda: set_limits(setup["limits"]), WORLD["filter"])
    supervisor = HARNESS_MODULES["code_supervisor"]
    sys.argv = [os.path.join(RUN_SCRATCH, "code_supervisor.py")]
    sys.dont_write_bytecode = True
    hand_first_start_to(supervisor, mine, runner, setup["limits"])
    os.close(4)  # started: from here on, what happens is the run's own
    try:
        supervisor.main()  # reports on stdout and leaves with os._exit
    finally:
        os._exit(1)


def hand_first_start_to(supervisor: ModuleType, sock: socket.socket, runner_pid: int, limits: dict[str, Any]) -> None:
    """Make the supervisor's first start of the runner use the pre-forked candidate process
    (``code_procs.PRESTARTED``, as the local zygote does)."""
    procs = HARNESS_MODULES["code_procs"]

    def start(args: Sequence[object], stdin: int, stdout: int, stderr: int, keep: Sequence[int]) -> int | None:
        spec = {
            "argv": [str(a) for a in args],
            "keep": [int(fd) for fd in keep],
            "env": dict(os.environ),
            "limits": limits,
        }
        try:
            socket.send_fds(sock, [json.dumps(spec).encode()], [stdin, stdout, stderr, *keep])
        except OSError:
            return None  # it is gone: start one the usual way
        sock.close()
        return runner_pid

    procs.PRESTARTED[:] = [(getattr(supervisor, "RUNNER", None), start, runner_pid)]


def wait_as_runner(sock: socket.socket, uid: int) -> NoReturn:
    """The pre-forked candidate process: the run uid at once, wait for the supervisor's start, then be the
    runner. Never returns."""
    code = 1
    try:
        for fd in range(5):  # hold nothing of the supervisor's until it hands us our fds
            os.close(fd)
        drop_privileges(uid, uid)
        try:
            message, fds, _flags, _addr = socket.recv_fds(sock, 1 << 16, 64)
        except OSError:
            os._exit(0)
        if not message:
            os._exit(0)
        spec = json.loads(message)
        targets = [0, 1, 2, *spec["keep"]]
        if len(fds) != len(targets):
            os._exit(1)
        sock.close()
        os.setsid()
        set_limits(spec["limits"])
        if WORLD["filter"] is not None:
            WORLD["filter"]()  # the deny list, as the supervisor that would have exec'd us has it
        LIBC.prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE: as an exec'd runner is (the uid change made us not)
        place_fds(dict(zip(targets, fds, strict=False)))
        os.environ.clear()
        os.environ.update(spec["env"])
        os.chdir(RUN_SCRATCH)
        sys.argv = spec["argv"]
        sys.dont_write_bytecode = True
        cases = HARNESS_MODULES["code_case_runner"]
        if os.path.basename(sys.argv[0]) == "code_case_runner.py":
            code = cases.exit_like_an_interpreter(cases.main)  # the warm process of stdin/stdout cases
        else:
            sys.path.insert(0, RUN_SCRATCH)
            code = cases.exit_like_an_interpreter(HARNESS_MODULES["code_runner"].main)
    finally:
        os._exit(code)
