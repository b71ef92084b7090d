"""The judge of a built program, inside the sandbox (plain stdlib): run it on every test, check each output.

Run as ``python3 -I -S -B native_judge.py`` in the scratch dir holding the artifact (and a checker, if any), or
as ``main()`` in a fork of the local sandbox's warm zygote, with a header line and then the job as JSON on stdin
(see ``rewardkit.verifiers.code_tests.native.judge_job``). Like the Python harness's supervisor, it reads the job
(expected outputs included) before any program process exists, makes itself non-dumpable, ignores the signals a
program could send it and checks its own invariants (``code_invariants``) before the first test and before it
reports. An executable artifact (and a compiled checker) is copied into a sealed in-memory file before the
first test and executed from there, so no test can change what the next one runs.

Each test: a fresh process in a session of its own under the test's CPU, address-space and file-size rlimits,
its input on stdin (``input_mode: file``: also as ``input.txt``, its answer read from ``output.txt`` when the
program writes one), stdout and stderr capped; once it exits, every process of the run but this one is
killed. Then the output is compared here (token-wise) or by the dataset's checker, a fresh process of its own
in a fresh dir. Tests run group by group (an IOI subtask); ``stop: group`` skips the rest of a group after a
failed test, ``stop: first`` everything after it. The verdict is one line ``RKN1 <nonce> <json>`` on stdout.
"""

from __future__ import annotations

import fcntl
import json
import os
import resource
import select
import signal
import sys
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import code_invariants  # noqa: E402
from code_io_cases import outputs_match  # noqa: E402
from code_procs import nondumpable, shield_signals  # noqa: E402

sys.path.remove(HERE)

RESULT_TAG = "RKN1"
STDERR_TAIL = 4096
_SEALS = fcntl.F_SEAL_WRITE | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL


def sealed_copy(name: str) -> int:
    """A read-only, sealed in-memory copy of ``name`` (close-on-exec)."""
    with open(os.path.join(SCRATCH[0], name), "rb") as fh:
        data = fh.read()
    fd = os.memfd_create("rk-" + os.path.basename(name), os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, _SEALS)
    return fd


class Launcher:
    """The process that starts every test, and stays small: a test's peak resident memory (``ru_maxrss``) counts
    its process from the fork on, and forked from the judge (which holds every test's data) it would start at the
    judge's size. The first is forked before the job is read; a replacement (a program may kill or stop it: it
    has the program's uid) is a fresh interpreter (``--launcher``), small again. It starts each test, waits for
    it and reports its wait status and rusage over a socket.

    The tests' launcher (``spawn``) takes the tests' rlimits on itself, hard, at its first test (every test of a
    job has the same) and starts each test with ``posix_spawn`` (a vfork: a millisecond less than a fork of an
    interpreter), which they reach through inheritance; it retires (a fresh one follows) before its own CPU
    time nears the CPU limit. The checker's launcher forks and sets the checker's limits in the child."""

    def __init__(self, fresh: bool = False, spawn: bool = False) -> None:
        import socket

        self.socket = socket
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.pid = os.fork()
        if self.pid == 0:
            ours.close()
            try:
                if fresh:
                    os.set_inheritable(theirs.fileno(), True)
                    script = os.path.join(HERE, "native_judge.py")
                    os.execv(
                        sys.executable, [sys.executable, "-I", "-S", "-B", script, "--launcher", str(theirs.fileno())]
                    )
                serve(theirs)
            finally:
                os._exit(0)
        theirs.close()
        self.sock = ours
        self.fd = ours.fileno()
        self.alive = True
        self.spawn = spawn
        self.retired = False

    def close(self) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except OSError:
            pass
        self.sock.close()

    def start(
        self,
        argv: list[str],
        exec_fd: int | None,
        env: dict[str, str],
        cwd: str,
        fds: tuple[int, int, int],
        limits: list[tuple[int, int]],
        keep: int | None = None,
    ) -> int | None:
        """Start a test process; its pid, or None when the launcher is gone."""
        extra = [fd for fd in (exec_fd, keep) if fd is not None]
        request = {"argv": argv, "env": env, "cwd": cwd, "limits": limits, "exec": exec_fd is not None}
        request.update(keep=keep is not None, spawn=self.spawn)
        try:
            self.socket.send_fds(self.sock, [json.dumps(request).encode()], [*fds, *extra])
            reply = json.loads(self.sock.recv(4096) or b"null")
        except (OSError, ValueError):
            reply = None
        if type(reply) is not dict or type(reply.get("pid")) is not int:
            self.alive = False
            return None
        return int(reply["pid"])

    def result(self, timeout: float) -> dict[str, Any] | None:
        """The finished test's status and rusage; None when it is not there within ``timeout`` (or the launcher
        is gone)."""
        if not select.select([self.sock], [], [], max(0.0, timeout))[0]:
            return None
        try:
            reply = json.loads(self.sock.recv(4096) or b"null")
        except (OSError, ValueError):
            reply = None
        if type(reply) is not dict or type(reply.get("status")) is not int:
            self.alive = False
            return None
        self.retired = reply.get("retire") is True
        return reply


def serve(sock: Any) -> None:
    """The launcher's loop (in its own process): start each requested test, wait for it, report."""
    import socket

    sock.set_inheritable(False)
    sealed = close_on_exec()
    taken: list[list[int]] | None = None  # the rlimits this launcher took on itself for its spawned tests
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(sock, 1 << 16, 8)
        except OSError:
            return
        if not data:
            return
        for fd in fds:  # received fds are inheritable: none may reach a spawned test but through file actions
            os.set_inheritable(fd, False)
        request = json.loads(data)
        if request["spawn"] and sealed and taken is None and may_take(request["limits"], fds):
            for what, value in request["limits"]:
                resource.setrlimit(what, (value, value))
            taken = request["limits"]
        pid = spawn(request, fds) if request["spawn"] and taken is not None and taken == request["limits"] else 0
        if pid:  # else (not spawned, or posix_spawn failed: the fork's exec fails the same way) forked below
            for fd in fds:
                os.close(fd)
            try:
                sock.send(json.dumps({"pid": pid}).encode())
                _, status, usage = os.wait4(pid, 0)
                own = resource.getrusage(resource.RUSAGE_SELF)
                cpu_limit = next((value for what, value in taken or [] if what == resource.RLIMIT_CPU), 1 << 30)
                report = {"status": status, "cpu": usage.ru_utime + usage.ru_stime, "maxrss": usage.ru_maxrss}
                report["retire"] = (own.ru_utime + own.ru_stime) * 2 > cpu_limit
                sock.send(json.dumps(report).encode())
            except OSError:
                return
            if report["retire"]:
                return
            continue
        pid = os.fork()
        if pid == 0:  # the test: only what exec needs, and never back into the launcher's loop
            try:
                os.setsid()
                for what, value in request["limits"]:
                    resource.setrlimit(what, (value, value))
                for target, fd in enumerate(fds[:3]):
                    os.dup2(fd, target)
                # the test gets 0, 1, 2 and (a script the interpreter opens as /proc/self/fd/3) its checker,
                # nothing else; the executable's fd closes on exec
                high = max(8, min(250, resource.getrlimit(resource.RLIMIT_NOFILE)[0] - 1))
                exec_fd = fcntl.fcntl(fds[3], fcntl.F_DUPFD_CLOEXEC, high) if request["exec"] else None
                if request["keep"]:
                    os.dup2(fds[-1], 3)
                os.closerange(4 if request["keep"] else 3, high)
                os.chdir(request["cwd"])
                for number in range(1, signal.NSIG):
                    try:
                        signal.signal(number, signal.SIG_DFL)
                    except (OSError, ValueError, RuntimeError):
                        pass
                if exec_fd is not None:
                    os.execve(exec_fd, request["argv"], request["env"])
                os.execvpe(request["argv"][0], request["argv"], request["env"])
            except BaseException:  # noqa: BLE001 - nothing may return from a forked child
                os._exit(127)
        for fd in fds:
            os.close(fd)
        try:
            sock.send(json.dumps({"pid": pid}).encode())
            _, status, usage = os.wait4(pid, 0)
            report = {"status": status, "cpu": usage.ru_utime + usage.ru_stime, "maxrss": usage.ru_maxrss}
            sock.send(json.dumps(report).encode())
        except OSError:
            return


SPAWN_MARGIN = 128 << 20  # address space the tests' launcher keeps beyond its own under the tests' RLIMIT_AS


def close_on_exec() -> bool:
    """Mark every fd above 2 this process holds close-on-exec (one it inherited too); False when /proc says not
    which it holds."""
    try:
        held = [int(name) for name in os.listdir("/proc/self/fd")]
    except (OSError, ValueError):
        return False
    for fd in held:
        if fd > 2:
            try:
                os.set_inheritable(fd, False)
            except OSError:  # the listing's own fd, closed by now
                pass
    return True


def may_take(limits: list[list[int]], fds: list[int]) -> bool:
    """Whether the tests' launcher can live under the tests' rlimits (else it forks each test)."""
    try:
        with open("/proc/self/statm", "rb") as fh:
            size = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return False
    room = dict((what, value) for what, value in limits).get(resource.RLIMIT_AS)
    return min(fds, default=3) > 2 and (room is None or room >= size + SPAWN_MARGIN)


def spawn(request: dict[str, Any], fds: list[int]) -> int:
    """``posix_spawn`` a test (its pid, 0 when that failed): its own session, default signal dispositions, fds
    0-2 and nothing else (every fd of the launcher is close-on-exec), the launcher's rlimits."""
    env = request["env"]
    argv = request["argv"]
    if request["exec"]:
        path = "/proc/self/fd/%d" % fds[3]  # the sealed copy: opened by exec before it closes on exec
    else:
        path = argv[0]
        if "/" not in path:
            for folder in env.get("PATH", "").split(os.pathsep):
                if folder and os.access(os.path.join(folder, path), os.X_OK):
                    path = os.path.join(folder, path)
                    break
    os.chdir(request["cwd"])
    actions = [(os.POSIX_SPAWN_DUP2, fd, target) for target, fd in enumerate(fds[:3])]
    try:
        return os.posix_spawn(path, argv, env, file_actions=actions, setsid=True, setsigmask=(), setsigdef=DEFAULTED)
    except OSError:
        return 0


DEFAULTED = tuple(signal.valid_signals() - {signal.SIGKILL, signal.SIGSTOP})
LAUNCHER: list[Launcher] = []  # the tests' launcher, the checker's


def launcher(which: int = 0) -> Launcher:
    """The launcher, a fresh one where a program killed or stopped the last (or it retired)."""
    if not LAUNCHER[which].alive or LAUNCHER[which].retired:
        LAUNCHER[which].close()
        LAUNCHER[which] = Launcher(fresh=True, spawn=which == 0)
    return LAUNCHER[which]


def kill_others(pgid: int) -> None:
    """Every process of the run but this one and the launcher (as PID 1 of the run's namespace), else the
    test's process group."""
    spared = {os.getpid(), *(one.pid for one in LAUNCHER if one.alive)}
    end = time.monotonic() + 2.0
    while time.monotonic() < end:
        left = False
        if os.getpid() == 1:
            for entry in os.listdir("/proc"):
                if entry.isdigit() and int(entry) not in spared:
                    left = True
                    try:
                        os.kill(int(entry), signal.SIGKILL)
                    except OSError:
                        pass
        else:
            try:
                os.killpg(pgid, signal.SIGKILL)
            except OSError:
                pass
        try:
            while os.waitpid(-1, os.WNOHANG)[0] > 0:  # orphans of the test, handed to us as PID 1
                pass
        except ChildProcessError:
            pass
        if not left:
            return
        time.sleep(0.001)


def run_process(
    argv: list[str],
    exec_fd: int | None,
    env: dict[str, str],
    cwd: str,
    data: bytes,
    limits: list[tuple[int, int]],
    wall: float,
    cap: int,
    keep: int | None = None,
    which: int = 0,
) -> tuple[int | None, dict[str, Any] | None, bytes, bytes, bool]:
    """Run one process to its end (or its wall limit): (wait status or None, its usage, stdout, stderr tail,
    over the output cap). Raises LauncherGone when the launcher died."""
    launcher = LAUNCHER[which]
    if not launcher.alive:
        raise LauncherGone()
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    pid = launcher.start(argv, exec_fd, env, cwd, (in_r, out_w, err_w), limits, keep)
    for fd in (in_r, out_w, err_w):
        os.close(fd)
    if pid is None:
        for fd in (in_w, out_r, err_r):
            os.close(fd)
        raise LauncherGone()
    out, err, pending = bytearray(), bytearray(), memoryview(data)
    readers, writers = [out_r, err_r], [in_w] if data else []
    for fd in (in_w, out_r, err_r):
        os.set_blocking(fd, False)
    if not data:
        os.close(in_w)
    deadline = time.monotonic() + wall
    usage: dict[str, Any] | None = None
    over = False
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            readable, writable, _ = select.select([*readers, launcher.fd], writers, [], left)
            for fd in readable:
                if fd == launcher.fd:
                    continue
                try:
                    block = os.read(fd, 1 << 16)
                except BlockingIOError:
                    continue
                if not block:
                    readers.remove(fd)
                elif fd == out_r:
                    out += block
                    if len(out) > cap:
                        over = True
                else:
                    err += block
                    del err[:-STDERR_TAIL]
            if over:
                break
            if writable:
                try:
                    pending = pending[os.write(in_w, pending[: 1 << 16]) :]
                except (BlockingIOError, InterruptedError):
                    pass
                except OSError:  # the program closed its stdin: what it did not read is its business
                    pending = pending[:0]
                if not pending:
                    os.close(in_w)
                    writers = []
            if launcher.fd in readable:
                usage = launcher.result(0.0)
                _drain(readers, out_r, out, err, cap)
                break
    finally:
        if usage is None:
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
            killed = launcher.result(2.0) if launcher.alive else None
            if killed is None:  # its test was killed and it says nothing: stopped, or gone
                launcher.alive = False
            if over:
                usage = killed
        for fd in [*readers, *writers, out_r, err_r]:
            try:
                os.close(fd)
            except OSError:
                pass
        kill_others(pid)
    if usage is None and not over and not launcher.alive and time.monotonic() < deadline:
        raise LauncherGone()
    return (usage["status"] if usage else None), usage, bytes(out[: cap + 1]), bytes(err), over


class LauncherGone(Exception):
    """The launcher died or stopped during a test: that test's program did it (nothing else runs)."""


def _drain(readers: list[int], out_r: int, out: bytearray, err: bytearray, cap: int) -> None:
    """What the pipes hold once the program exited (a process it left may keep them open: never wait for it)."""
    for fd in list(readers):
        while len(out) <= cap:
            try:
                block = os.read(fd, 1 << 16)
            except (BlockingIOError, OSError):
                break
            if not block:
                break
            if fd == out_r:
                out += block
            else:
                err += block
                del err[:-STDERR_TAIL]


def judge_case(job: dict[str, Any], case: dict[str, Any], exec_fd: int | None, env: dict[str, str]) -> dict[str, Any]:
    limits = job["limits"]
    time_limit = float(limits["time"])
    rl = [
        (resource.RLIMIT_CPU, int(time_limit) + 1),
        (resource.RLIMIT_AS, int(limits["address_space"])),
        (resource.RLIMIT_FSIZE, int(limits["file_bytes"])),
        (resource.RLIMIT_CORE, 0),
    ]
    data = case["input"].encode("utf-8")
    file_mode = job.get("input_mode") == "file"
    if file_mode:
        _write(os.path.join(SCRATCH[0], job.get("input_file", "input.txt")), data)
        _remove(os.path.join(SCRATCH[0], job.get("output_file", "output.txt")))
    argv = job["argv"]
    start = time.monotonic()
    status, usage, out, err, over = run_process(
        argv, exec_fd, env, SCRATCH[0], data, rl, float(limits["wall"]), int(limits["output_bytes"])
    )
    wall = time.monotonic() - start
    cpu = float(usage["cpu"]) if usage is not None else wall
    peak = int(usage["maxrss"]) * 1024 if usage is not None else 0
    found = {"time": round(cpu, 4), "wall": round(wall, 4), "memory": peak}
    code = os.waitstatus_to_exitcode(status) if status is not None else None
    tail = err.decode("utf-8", "replace")
    out_of_memory = peak > int(limits["memory"]) or any(m in tail for m in job.get("memory_markers", ()))
    if over:
        return dict(found, status="OLE", error="output over %d bytes" % int(limits["output_bytes"]))
    if cpu > time_limit or code is None or code in (-signal.SIGXCPU,) or wall >= float(limits["wall"]):
        return dict(found, status="TLE", error="ran past its time limit (%.2fs CPU, %.2fs wall)" % (cpu, wall))
    if out_of_memory:
        return dict(found, status="MLE", error="over its memory limit (peak %d MiB)" % (peak >> 20), stderr=tail[-500:])
    if code != 0:
        what = "killed by signal %d" % -code if code < 0 else "exit status %d" % code
        return dict(found, status="RE", error=what, stderr=tail[-500:])
    if file_mode:
        produced = _read(os.path.join(SCRATCH[0], job.get("output_file", "output.txt")), int(limits["output_bytes"]))
        if produced is not None:
            out = produced
    verdict = check(job, case, out)
    return dict(found, **verdict)


def check(job: dict[str, Any], case: dict[str, Any], out: bytes) -> dict[str, Any]:
    checker = job.get("checker")
    text = out.decode("utf-8", "replace")
    if not checker:
        compare = job.get("compare") or {}
        ok = outputs_match(text, case["answer"], compare.get("tolerance"), compare.get("rule"))
        return {"status": "AC", "score": 1.0} if ok else {"status": "WA", "score": 0.0, "error": "wrong answer"}
    work = os.path.join(SCRATCH[0], "check-" + os.urandom(8).hex())
    os.mkdir(work, 0o700)
    files = {"input": case["input"].encode("utf-8"), "answer": case["answer"].encode("utf-8"), "output": out}
    names = checker["files"]
    for role, data in files.items():
        _write(os.path.join(work, names[role]), data)
    fd = CHECKER_FD[0]
    assert fd is not None
    argv = [part.format(checker="/proc/self/fd/3", **names) for part in checker["argv"]]
    keep: int | None = None
    exec_fd: int | None = fd
    if checker.get("interpreted"):  # the interpreter opens the script as /proc/self/fd/3: it must survive exec
        keep, exec_fd = fd, None
    limits = [(resource.RLIMIT_CPU, int(checker["time"]) + 1), (resource.RLIMIT_AS, int(checker["address_space"]))]
    launcher(1)
    status, _, stdout, stderr, _ = run_process(
        argv, exec_fd, CLEAN_ENV, work, b"", limits, float(checker["time"]) * 2 + 1, 1 << 20, keep, which=1
    )
    code = os.waitstatus_to_exitcode(status) if status is not None else None
    message = (stderr or stdout).decode("utf-8", "replace").strip()[:300]
    score = read_score(checker["verdict"], code, stdout.decode("utf-8", "replace"), stderr.decode("utf-8", "replace"))
    if score is None:
        return {
            "status": "WA",
            "score": 0.0,
            "checker_failed": True,
            "error": "checker failed (%s): %s" % (code, message),
        }
    if score >= 1.0:
        return {"status": "AC", "score": 1.0}
    return {"status": "PA" if score > 0 else "WA", "score": score, "error": message or "wrong answer"}


def read_score(rule: str, code: int | None, stdout: str, stderr: str = "") -> float | None:
    """The checker's score in [0, 1], or None when the checker itself failed."""
    tokens = stdout.split()
    if rule == "exit_code":  # testlib: 0 accepted, 1 wrong answer, 2 presentation error, 3 the checker failed
        if code == 0:
            return 1.0
        if code == 7:  # quitp(points): "points <value> <message>" on stderr
            return testlib_points(stderr)
        return 0.0 if code in (1, 2, 8) else None  # 8: the output ended early (ENABLE_UNEXPECTED_EOF)
    if code != 0 or not tokens:
        return None if code not in (0, 1) else 0.0
    token = tokens[-1] if rule == "last_token" else tokens[0]
    try:
        value = float(token)
    except ValueError:
        return 0.0
    return min(1.0, max(0.0, value)) if value == value else None


def testlib_points(stderr: str) -> float | None:
    """The points of testlib's ``quitp`` as a score: a value in [0, 1] is the test's fraction; anything else (no
    value, points on a scale only the problem knows) is the checker's failure."""
    tokens = stderr.split()
    if len(tokens) < 2 or tokens[0] != "points":
        return None
    try:
        value = float(tokens[1])
    except ValueError:
        return None
    return value if 0.0 <= value <= 1.0 else None


def _write(path: str, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def _read(path: str, cap: int) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        return os.read(fd, cap)
    finally:
        os.close(fd)


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


CHECKER_FD: list[int | None] = [None]
CLEAN_ENV: dict[str, str] = {}
SCRATCH = [HERE]  # the run's scratch dir: the working dir main() started in


def main() -> int:
    """Judge the job on stdin, in the working dir (the run's scratch dir, which holds the artifact), as the run's
    PID 1. The judge checks its own invariants (``code_invariants``, those the sandbox names) before the first
    test and before it reports; it refuses to judge when one fails."""
    invariants = code_invariants.Checker((sys.executable, os.path.join(HERE, "native_judge.py")))
    private = nondumpable()
    shield_signals()
    SCRATCH[0] = os.getcwd()
    os.chdir("/")  # nothing of ours runs in a dir the run can write
    # before the job is read (see Launcher): the checker's only where the first line, the host's, says there is one
    header = json.loads(_first_line(0))
    LAUNCHER.extend((Launcher(spawn=True), Launcher()) if header.get("checker") else (Launcher(spawn=True),))
    job = json.loads(sys.stdin.buffer.read())
    try:
        if not private:  # a test of our uid could read the expected outputs out of our memory
            raise code_invariants.InvariantBroken("cannot make the judge non-dumpable")
        checked = invariants.at_start(tuple(one.pid for one in LAUNCHER))
    except (code_invariants.InvariantBroken, OSError) as exc:
        return _report(job, {"cases": [], "harness_error": "refusing to judge: %s" % str(exc)[:1000]})
    report = judge(job)
    report["invariants"] = checked
    for one in LAUNCHER:
        one.close()
    try:
        invariants.before_report()
    except (code_invariants.InvariantBroken, OSError) as exc:  # after tests ran: nothing is credited
        report["refused"] = str(exc)[:1000]
    return _report(job, report)


def _first_line(fd: int) -> bytes:
    """The first line on ``fd``, read a byte at a time: a buffered read would take in part of the job too."""
    line = bytearray()
    while len(line) < 4096:
        byte = os.read(fd, 1)
        if not byte or byte == b"\n":
            break
        line += byte
    return bytes(line)


def _report(job: dict[str, Any], report: dict[str, Any]) -> int:
    sys.stdout.write("%s %s %s\n" % (RESULT_TAG, job["nonce"], json.dumps(report)))
    sys.stdout.flush()
    return 0


def judge(job: dict[str, Any]) -> dict[str, Any]:
    started = time.monotonic()
    scratch = SCRATCH[0]
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": scratch, "TMPDIR": scratch, "LANG": "C.UTF-8"}
    CLEAN_ENV.update(env)
    env.update({k: v.replace("{scratch}", scratch) for k, v in job.get("env", {}).items()})
    exec_fd = sealed_copy(job["exec"]) if job.get("exec") else None
    checker = job.get("checker")
    if checker:
        CHECKER_FD[0] = sealed_copy(checker["file"])
    cases = job["cases"]
    results: list[dict[str, Any] | None] = [None] * len(cases)
    budget_hit = False
    stop = job.get("stop", "never")
    for group in job["groups"]:
        failed = False
        for index in group:
            if results[index] is not None:
                failed = failed or results[index]["status"] != "AC" and results[index].get("score", 0) == 0
                continue
            if failed and stop in ("group", "first"):
                results[index] = {"status": "SKIP", "error": "an earlier test of its group failed"}
                continue
            if time.monotonic() - started > float(job["budget"]):
                budget_hit = True
                results[index] = {"status": "SKIP", "error": "the judging time budget ran out"}
                continue
            launcher()
            try:
                results[index] = judge_case(job, cases[index], exec_fd, env)
            except LauncherGone:
                results[index] = {"status": "RE", "error": "the program killed or stopped the judge's launcher"}
            if results[index]["status"] != "AC" and results[index].get("score", 0) == 0:
                failed = True
        if failed and stop == "first":
            for rest in job["groups"]:
                for index in rest:
                    if results[index] is None:
                        results[index] = {"status": "SKIP", "error": "an earlier test failed"}
            break
    for index, result in enumerate(results):
        if result is None:
            results[index] = {"status": "SKIP", "error": "in no group"}
    return {"cases": results, "budget_hit": budget_hit}


if __name__ == "__main__":
    if sys.argv[1:2] == ["--launcher"]:
        import socket

        nondumpable()
        shield_signals()
        serve(socket.socket(fileno=int(sys.argv[2])))
        sys.exit(0)
    sys.exit(main())
