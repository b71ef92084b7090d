"""The pre-forked processes of one zygote run: the harness supervisor and its first candidate process
(stdlib only; part of the in-container supervisor's source, see ``zygote.py``).

Both are forked BEFORE the run's request is read, by the zygote's template process, which never reads a
request: so neither holds anything of this run or of an earlier one (no nonce, no tests, no program).
They drop to the container's run uid at once and wait:

* the harness supervisor (the run's first process, as the command is in the exec path) for its setup
  (limits, environment) on a pipe, then runs ``code_supervisor.main()`` of the harness modules the zygote
  imported at start, reading the job from its stdin as the exec'd supervisor does;
* the candidate process on a unix socket, until the supervisor's first ``spawn_python`` of the runner
  hands it its argv and fds (``SCM_RIGHTS``); it then takes the rlimits, the seccomp guard (protecting
  the supervisor's pid, as the exec'd runner inherits it) and the clean environment, and runs
  ``code_runner.main()`` as the exec'd runner would. Later starts (after a crash) exec a fresh runner.
"""

import atexit
import fcntl
import json
import os
import socket
import sys
import traceback

if "set_limits" not in globals():  # on the host; in a container the other modules are prepended
    from rewardkit.sandbox.docker.seccomp import install_signal_guard, prctl_function
    from rewardkit.sandbox.docker.supervisor import read_exact, set_limits
    from rewardkit.sandbox.docker.wipe import drop_privileges

HARNESS_MODULES: dict = {}  # name -> module, imported once by the zygote server


def prestart_harness(uid, scratch):
    """Fork the run's harness supervisor (which forks its first candidate process); return its handles."""
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    setup_r, setup_w = os.pipe()
    report_r, report_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            become_harness(uid, scratch, {0: in_r, 1: out_w, 2: err_w, 3: setup_r, 4: report_w})
        except BaseException as exc:  # noqa: BLE001 - report it; never return into the handler's code
            try:
                os.write(4, f"cannot start the harness: {type(exc).__name__}: {exc}".encode()[:4000])
            finally:
                os._exit(127)
        os._exit(0)
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


def place_fds(mapping):
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


def become_harness(uid, scratch, fds):
    place_fds(fds)
    os.setsid()
    with open("/proc/self/oom_score_adj", "w") as fh:
        fh.write("1000")
    drop_privileges(uid, uid)
    os.umask(0o022)
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    runner = os.fork()
    if runner == 0:
        mine.close()
        wait_as_runner(theirs, scratch)
    theirs.close()
    setup = json.loads(read_exact(3, int.from_bytes(read_exact(3, 8), "big")))
    os.close(3)
    os.chdir(scratch)
    set_limits(setup["limits"])
    install_signal_guard(os.getpid())
    os.environ.clear()
    os.environ.update(setup["env"], HOME=scratch)
    supervisor = HARNESS_MODULES["code_supervisor"]
    sys.argv = [os.path.join(scratch, "code_supervisor.py")]
    sys.dont_write_bytecode = True
    hand_first_start_to(supervisor, mine, runner, setup["limits"], scratch)
    os.close(4)  # started: from here on, what happens is the run's own
    try:
        supervisor.main()  # reports on stdout and leaves with os._exit
    finally:
        os._exit(1)


def hand_first_start_to(supervisor, sock, runner_pid, limits, scratch):
    """Make the supervisor's first start of the runner use the pre-forked candidate process
    (``code_procs.PRESTARTED``, as the local zygote does)."""
    procs = HARNESS_MODULES["code_procs"]

    def start(args, stdin, stdout, stderr, keep):
        spec = {
            "argv": [str(a) for a in args],
            "keep": [int(fd) for fd in keep],
            "env": dict(os.environ),
            "limits": limits,
            "guard": os.getpid(),
            "scratch": scratch,
        }
        try:
            socket.send_fds(sock, [json.dumps(spec).encode()], [stdin, stdout, stderr, *keep])
        except OSError:
            return None  # it is gone: start one the usual way
        sock.close()
        return runner_pid

    procs.PRESTARTED[:] = [(getattr(supervisor, "RUNNER", None), start)]


def wait_as_runner(sock, scratch):
    """The pre-forked candidate process: wait for the supervisor's start, then be the runner. Never returns."""
    code = 1
    try:
        for fd in range(5):  # hold nothing of the supervisor's until it hands us our fds
            os.close(fd)
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
        install_signal_guard(spec["guard"])
        make_dumpable()  # as an exec'd runner is (the uid change made us not): its own /proc/self, as usual
        place_fds(dict(zip(targets, fds, strict=False)))
        os.environ.clear()
        os.environ.update(spec["env"])
        os.chdir(scratch)
        sys.argv = spec["argv"]
        sys.path.insert(0, scratch)
        sys.dont_write_bytecode = True
        code = exit_like_an_interpreter(HARNESS_MODULES["code_runner"].main)
    finally:
        os._exit(code)


def make_dumpable():
    prctl_function()(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE


def exit_like_an_interpreter(main):
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
