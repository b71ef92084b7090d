"""Warm zygotes for the ``local`` sandbox, host side: start them, hand them code-harness runs, replace them.

A zygote (:mod:`rewardkit.sandbox.local.zygote_main`) is a Python process started once inside the same
outer isolation as a fork-exec'd run (bubblewrap or ``unshare``: no network, namespaces of its own) that
has imported the code harness. Per run it forks the run's supervisor into fresh PID, mount, IPC and UTS
namespaces with a fresh scratch tmpfs, the run's own uid, rlimits and the seccomp deny list; the
supervisor forks the candidate's processes instead of starting interpreters. See docs/sandbox-local.md,
"Warm zygote".

One zygote serves one run at a time; ``zygote_pool.ZygotePool`` keeps the idle ones (as many as
runs went on at once). A zygote that fails to answer as expected (dead, silent, a reply that is not the protocol's) is
killed and never reused; a run whose zygote failed before the run existed is retried on a fresh one.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import struct
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

from rewardkit.sandbox import run_world, seccomp_bpf
from rewardkit.sandbox.base import Limits
from rewardkit.sandbox.local.cgroup import RunCgroup
from rewardkit.sandbox.local.launch import SCRATCH, UNSHARE_NAMESPACES, clean_env, sandbox_path, system_binds

INSIDE = "/rk-zygote"  # where the zygote's own files are bound (bwrap)
# Mounts and namespaces, uid changes, killing; lo up in each run's network namespace (NET_ADMIN), an OOM score
# the run cannot lower (SYS_RESOURCE), and the run's bounding set emptied (SETPCAP). A run holds none of them.
CAPS = (
    "CAP_SYS_ADMIN",
    "CAP_SETUID",
    "CAP_SETGID",
    "CAP_KILL",
    "CAP_NET_ADMIN",
    "CAP_SYS_RESOURCE",
    "CAP_SETPCAP",
)
_PRIVATE = {"bwrap": "/dev/shm", "unshare": "/dev/shm,/var/tmp,/run/lock"}
_CRED = struct.Struct("3i")
_HELLO_TIMEOUT = 30.0
_REPLY_TIMEOUT = 10.0


class ZygoteFailure(Exception):
    """The zygote broke its protocol or died: it is killed and replaced."""


def make_zygote_dir(harness: Mapping[str, bytes]) -> str:
    """A root-owned, read-only dir holding the zygote's script, the harness and the seccomp module."""
    root = tempfile.mkdtemp(prefix="rk-zygote-")
    sources = {
        **harness,
        "local_zygote_main.py": Path(__file__).with_name("zygote_main.py").read_bytes(),
        "seccomp_bpf.py": Path(seccomp_bpf.__file__).read_bytes(),
        "run_world.py": Path(run_world.__file__).read_bytes(),
    }
    for name, data in sources.items():
        path = os.path.join(root, name)
        with open(path, "wb") as fh:
            fh.write(data)
        os.chmod(path, 0o444)
    os.chmod(root, 0o555)
    return root


def _python(isolation: str) -> str:
    """The python3 a fork-exec'd run would get: the first on the sandbox's PATH that the run's uid may
    execute (under ``unshare`` the host's dirs keep their modes, e.g. a pyenv under a 0700 /root)."""
    for directory in sandbox_path().split(":"):
        found = os.path.join(directory, "python3")
        if os.path.isfile(found) and (isolation == "bwrap" or _world_executable(os.path.realpath(found))):
            return os.path.realpath(found)
    raise ZygoteFailure(f"no python3 that a run may execute on the sandbox's PATH ({sandbox_path()})")


def _world_executable(path: str) -> bool:
    parts = Path(path).parts
    for i in range(1, len(parts) + 1):
        mode = os.stat(os.path.join(*parts[:i])).st_mode
        if not mode & 0o001:
            return False
    return True


def zygote_argv(isolation: str, zygote_dir: str, ctrl_fd: int, seccomp: bytes | None) -> list[str]:
    """No ``--die-with-parent``: the parent is the thread that started the zygote, and a worker thread may
    end while its zygote serves others. A zygote exits when the host closes (or loses) its control socket."""
    filter_hex = seccomp.hex() if seccomp is not None else "-"
    if isolation == "bwrap":
        argv = [
            "bwrap",
            "--unshare-pid",
            "--unshare-net",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--new-session",
            "--as-pid-1",
            *system_binds(),
            "--proc",
            "/proc",
            "--dev",
            "/dev",
            "--perms",
            "1777",
            "--tmpfs",
            "/dev/shm",
            "--perms",
            "1777",
            "--tmpfs",
            SCRATCH,
            "--symlink",
            SCRATCH,
            "/tmp",
            "--ro-bind",
            zygote_dir,
            INSIDE,
            "--chdir",
            "/",
        ]
        for cap in CAPS:
            argv += ["--cap-add", cap]
        here, scratch = INSIDE, SCRATCH
    else:
        argv = list(UNSHARE_NAMESPACES)
        here, scratch = zygote_dir, "/tmp"
    return [
        *argv,
        "--",
        _python(isolation),
        "-I",
        "-S",
        "-B",
        f"{here}/local_zygote_main.py",
        here,
        scratch,
        _PRIVATE[isolation],
        str(ctrl_fd),
        filter_hex,
    ]


class Zygote:
    """One warm zygote process and its control socket."""

    def __init__(self, isolation: str, zygote_dir: str, seccomp: bytes | None) -> None:
        self.isolation = isolation
        self.scratch = SCRATCH if isolation == "bwrap" else "/tmp"
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        ours.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        self.ctrl = ours
        self.pidfd: int | None = None
        self.run_pidfd: int | None = None
        self.pid = -1
        self.group: RunCgroup | None = None
        self.caps: tuple[int, int] | None = None
        try:
            self.proc = subprocess.Popen(
                zygote_argv(isolation, zygote_dir, theirs.fileno(), seccomp),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                pass_fds=(theirs.fileno(),),
                start_new_session=True,
                cwd="/",
                # /proc/<pid>/environ of every fork shows the environment the zygote was exec'd with,
                # whatever os.environ says later: nothing of the caller's may be in it (tokens, keys)
                env=clean_env(self.scratch),
            )
        finally:
            theirs.close()
        assert self.proc.stderr is not None
        os.set_blocking(self.proc.stderr.fileno(), False)
        try:
            hello, pid, uid = self._receive(_HELLO_TIMEOUT)
            if hello.get("op") != "hello" or uid != 0:
                raise ZygoteFailure(f"unexpected first message {hello!r} (uid {uid})")
            self.pid = pid
            self.pidfd = os.pidfd_open(pid)
        except (ZygoteFailure, OSError) as exc:
            detail = self._stderr()
            self.kill()
            raise ZygoteFailure(f"the zygote did not start: {exc}{': ' + detail if detail else ''}") from None

    def _stderr(self) -> str:
        try:
            assert self.proc.stderr is not None
            return (os.read(self.proc.stderr.fileno(), 4000) or b"").decode("utf-8", "replace").strip()
        except OSError:
            return ""

    def _receive(self, timeout: float) -> tuple[dict[str, object], int, int]:
        """One message and its sender's (pid on this host, uid), from the kernel's credentials."""
        self.ctrl.settimeout(timeout)
        try:
            data, ancillary, _, _ = self.ctrl.recvmsg(4096, socket.CMSG_SPACE(_CRED.size))
        except TimeoutError:
            raise ZygoteFailure("no answer in time") from None
        if not data:
            raise ZygoteFailure("the zygote hung up")
        pid = uid = -1
        for level, kind, value in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS and len(value) >= _CRED.size:
                pid, uid, _ = _CRED.unpack(value[: _CRED.size])
        try:
            message = json.loads(data)
        except ValueError:
            raise ZygoteFailure(f"a reply that is not JSON: {data[:100]!r}") from None
        if type(message) is not dict or pid <= 0:
            raise ZygoteFailure(f"a malformed reply: {data[:100]!r}")
        return message, pid, uid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def start_run(self, request: dict[str, object], fds: list[int]) -> int:
        """The "fork" stage: hand the run to the zygote, get its supervisor (a pidfd).

        Returns the write end of the run's "go" pipe: the supervisor waits on it. Raises ZygoteFailure
        when the zygote failed before the run existed (safe to retry elsewhere)."""
        go_r, go_w = os.pipe()
        try:
            try:
                socket.send_fds(self.ctrl, [json.dumps(request).encode()], [*fds[:3], go_r, *fds[3:]])
            except OSError as exc:
                raise ZygoteFailure(f"could not reach the zygote: {exc}") from None
            finally:
                os.close(go_r)
            message, pid, _ = self._receive(_REPLY_TIMEOUT)
            if message.get("op") == "exit":
                raise ZygoteFailure(f"the run's first process ended at once (status {message.get('status')})")
            if message.get("op") != "ready" or self.pidfd is None or pid == self.proc.pid:
                raise ZygoteFailure(f"unexpected reply {message!r}")
            self.run_pidfd = os.pidfd_open(pid)
        except BaseException:
            os.close(go_w)
            raise
        return go_w

    def group_for(self, limits: Limits) -> RunCgroup | None:
        """The zygote's cgroup with this run's caps, made once: the zygote is moved into it (its runs are the
        OOM killer's first choice, oom_score_adj 1000), so that each run it forks starts in it and nothing
        is attached per run (moving a process between cgroups waits for an RCU grace period: longer than the
        rest of a run). The zygote's own pages stay charged where they were; between runs nothing else is in the
        group."""
        memory, processes = limits.memory_bytes + limits.max_scratch_bytes, limits.max_processes + 5
        if self.group is None:
            self.group = RunCgroup.create(memory, processes)
            if self.group is None:
                return None
            self.group.add(self.pid)
        if self.group.processes() - {self.pid}:
            raise ZygoteFailure("a process of a finished run is still in the zygote's cgroup")
        if self.caps != (memory, processes):  # only the host writes them: unchanged since the last run
            self.group.set_limits(memory, processes)
            self.caps = (memory, processes)
        return self.group

    def kill_run(self) -> None:
        pidfd = self.run_pidfd
        if pidfd is not None:
            try:
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)  # the run's PID 1: its whole namespace dies
            except ProcessLookupError:
                pass

    def end_run(self, timeout: float) -> int:
        """The run's exit status (as subprocess reports it), once the zygote has reaped it."""
        try:
            message, _, _ = self._receive(timeout)
        finally:
            pidfd = self.run_pidfd
            if pidfd is not None:
                os.close(pidfd)
                self.run_pidfd = None
        status = message.get("status")
        if message.get("op") != "exit" or type(status) is not int:
            raise ZygoteFailure(f"unexpected reply {message!r}")
        return os.waitstatus_to_exitcode(status)

    def kill(self) -> None:
        self.kill_run()
        if self.pidfd is not None:
            try:
                signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.close(self.pidfd)
            self.pidfd = None
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.kill()
        self.proc.wait()
        if self.group is not None:
            self.group.destroy()
            self.group = None
        self.ctrl.close()
        if self.proc.stderr is not None:
            self.proc.stderr.close()
