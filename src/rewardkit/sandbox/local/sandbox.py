"""The ``local`` sandbox backend: one isolated subprocess per run, on this machine.

Each :meth:`LocalSandbox.run` starts a fresh process tree inside bubblewrap (or ``unshare``, see
:mod:`rewardkit.sandbox.local.launch`): no network, a read-only view of the system dirs and nothing
else of the host, a private size-capped scratch dir holding the run's files, rlimits, a uid of its
own without capabilities (when we are root), a seccomp deny list (:mod:`rewardkit.sandbox.seccomp_bpf`:
no kernel keyrings, namespaces, mounts, ptrace, bpf, ...), and an environment built from scratch. The caller's
thread watches the run: it stops reading past ``max_output_bytes`` per stream and kills the whole
tree at ``wall_time`` (the tree lives in its own PID namespace, whose init is the command, so
killing it takes down every process the program started, daemons included).

A generic run costs one bubblewrap start (a few milliseconds) plus the command. Runs of the ``warm`` program
(the code verifier's harness) can be forked from a warm zygote per worker instead
(:mod:`rewardkit.sandbox.local.zygote`, :mod:`.zygote_pool`).
"""

from __future__ import annotations

import itertools
import os
import random
import signal
import subprocess
import tempfile
import threading
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import replace

from rewardkit._errors import SandboxError
from rewardkit.sandbox.base import Limits, RunResult, Sandbox, WarmProgram
from rewardkit.sandbox.local.cgroup import RunCgroup
from rewardkit.sandbox.local.launch import (
    Launch,
    bwrap_launch,
    clean_env,
    detect_isolation,
    file_memfd,
    rlimits_launch,
    rlimits_preexec,
    unshare_launch,
)
from rewardkit.sandbox.local.pump import pump_fds, run_result
from rewardkit.sandbox.local.tree_removal import remove_tree
from rewardkit.sandbox.local.zygote_pool import ZygotePool
from rewardkit.sandbox.run_checks import FORK_EXEC_INVARIANTS, NO_INVARIANTS, check_run
from rewardkit.sandbox.seccomp_bpf import deny_filter

_UID_SPAN = 50_000


class LocalSandbox(Sandbox):
    """Runs commands in namespaces on this machine. See the module docstring and docs/sandbox-local.md.

    ``isolation``: ``"auto"`` (bubblewrap, else ``unshare`` as root, else a SandboxError),
    ``"bwrap"``, ``"unshare"``, or ``"rlimits"`` (explicit opt-in to NO namespaces, warns).
    ``limits``: the default :class:`Limits` of a run (each ``run`` may pass its own).
    ``uid_base``: first uid of the range runs get when we are root (one uid per run, rotating).
    ``cgroups``: ``"auto"`` (a cgroup per run capping the memory and processes of the whole run, where
    we may make one), ``"off"``, or ``"required"`` (a SandboxError where we may not).
    ``warm``: the program (:class:`WarmProgram`, the code verifier's harness) whose runs may be forked from
    a warm zygote per worker (:mod:`.zygote`) that has imported its files, instead of fork-exec'd.
    ``zygote``: ``"auto"`` (the default: zygotes where there is a ``warm`` program and they are supported,
    i.e. as root with bwrap or unshare; else fork-exec), ``True`` (a SandboxError without a ``warm`` program
    or where not supported) or ``False`` (every run fork-exec'd). Other commands are always fork-exec'd.
    See docs/sandbox-local.md, "Warm zygote".
    """

    name = "local"

    def __init__(
        self,
        *,
        isolation: str = "auto",
        limits: Limits | None = None,
        uid_base: int | None = None,
        cgroups: str = "auto",
        zygote: bool | str = "auto",
        warm: WarmProgram | None = None,
    ) -> None:
        self.isolation = detect_isolation(isolation)
        if cgroups not in ("auto", "off", "required"):
            raise SandboxError(f"local sandbox: cgroups must be 'auto', 'off' or 'required', got {cgroups!r}")
        self.cgroups = cgroups if self.isolation != "rlimits" else "off"
        if cgroups == "required":
            probe = RunCgroup.create(64 << 20, 8)
            if probe is None:
                raise SandboxError(
                    "local sandbox: cgroups='required' but no writable cgroup hierarchy (needs root "
                    "and a v1 memory+pids or v2 hierarchy with both controllers)"
                )
            probe.destroy()
        if self.isolation == "rlimits":
            message = (
                "rewardkit local sandbox: isolation='rlimits' runs untrusted code WITHOUT namespaces: "
                "it can reach the network, read your files and signal your processes; only rlimits apply"
            )
            warnings.warn(message, RuntimeWarning, stacklevel=2)
            import logging

            logging.getLogger("rewardkit.sandbox").warning(message)
        self.limits = limits or Limits()
        self._seccomp = deny_filter()
        if self._seccomp is None:
            warnings.warn(
                f"rewardkit local sandbox: no seccomp filter on {os.uname().machine} (only x86_64 and aarch64): "
                "programs may use kernel keyrings, ptrace, bpf and the other calls the filter denies",
                RuntimeWarning,
                stacklevel=2,
            )
        self._root = os.geteuid() == 0
        self._uid_base = uid_base if uid_base is not None else 1_000_000 + random.randrange(1000) * _UID_SPAN
        self._uid_counter = itertools.count()
        self._live: set[subprocess.Popen[bytes]] = set()
        self._lock = threading.Lock()
        self._closed = False
        self.warm = warm
        self._zygotes = self._zygote_pool(zygote)

    def _zygote_pool(self, zygote: bool | str) -> ZygotePool | None:
        if zygote not in (True, False, "auto"):
            raise SandboxError(f"local sandbox: zygote must be true, false or 'auto', got {zygote!r}")
        supported = self._root and self.isolation in ("bwrap", "unshare") and hasattr(os, "pidfd_open")
        if zygote is True and self.warm is None:
            raise SandboxError(
                "local sandbox: zygote=true needs warm=..., the program a zygote keeps warm (the code verifier "
                "passes rewardkit.verifiers.code_tests.job.warm_program()); set zygote: false or 'auto'"
            )
        if zygote is True and not supported:
            raise SandboxError(
                f"local sandbox: zygote=true needs root and isolation 'bwrap' or 'unshare' (this is "
                f"isolation {self.isolation!r}, {'root' if self._root else 'not root'}); set zygote: false"
            )
        if zygote is False or not supported or self.warm is None:
            return None
        return ZygotePool(self.isolation, self._seccomp, self.warm)

    @property
    def zygote(self) -> bool:
        """Whether runs of the ``warm`` program are forked from warm zygotes."""
        return self._zygotes is not None

    def zygote_pids(self) -> set[int]:
        """Host pids of this sandbox's warm zygotes (long-lived by design: not processes a run left)."""
        return self._zygotes.pids() if self._zygotes is not None else set()

    def zygote_dir(self) -> str | None:
        """The host dir holding the zygotes' read-only files (made with the first zygote), or None."""
        return self._zygotes.zygote_dir if self._zygotes is not None else None

    # -- one run ---------------------------------------------------------------------------------

    def run(
        self,
        command: Sequence[str],
        files: Mapping[str, bytes | str],
        *,
        stdin: bytes | None = None,
        limits: Limits | None = None,
        collect: Sequence[str] = (),
    ) -> RunResult:
        check_run("local", self._closed, command, [*files, *collect])
        limits = limits or self.limits
        blobs = {name: (data.encode() if isinstance(data, str) else bytes(data)) for name, data in files.items()}
        if collect and self.isolation == "unshare":
            raise SandboxError("local sandbox: collect is not supported with isolation='unshare' (use bwrap)")
        uid = self._next_uid() if self._root and self.isolation != "rlimits" else None
        warm = self._zygotes.warm.program_for(command, blobs) if self._zygotes is not None and not collect else None
        if self._zygotes is not None and warm is not None:
            return self._zygotes.run(blobs, stdin or b"", limits, uid, self.cgroups, warm.entry)
        host_scratch = None
        fds: dict[str, int] = {}
        seccomp_fd: int | None = None
        try:
            if self.isolation != "bwrap" or collect:
                # unshare mounts a tmpfs over /tmp before copying the files in: stage them elsewhere
                host_scratch = _host_scratch(blobs, "/var/tmp" if self.isolation == "unshare" else None)
            else:
                fds = {name: file_memfd(name, data) for name, data in blobs.items()}
            if self.isolation == "bwrap" and self._seccomp is not None:
                seccomp_fd = file_memfd("seccomp", self._seccomp)
            launch = self._launch(command, fds, limits, uid, host_scratch, seccomp_fd)
            result = self._execute_in_cgroup(launch, stdin, limits)
            if host_scratch is not None and collect and result.infra_error is None:
                result = _with_files(result, host_scratch, collect, limits.max_output_bytes)
            return result
        except (OSError, subprocess.SubprocessError) as exc:  # SubprocessError: the rlimits preexec step failed
            return RunResult(None, infra_error=f"local sandbox could not start the run: {exc!r}")
        finally:
            for fd in [*fds.values(), *([seccomp_fd] if seccomp_fd is not None else [])]:
                os.close(fd)
            if host_scratch is not None:
                remove_tree(host_scratch)  # iterative: a program may nest dirs thousands deep

    def _execute_in_cgroup(self, launch: Launch, stdin: bytes | None, limits: Limits) -> RunResult:
        """:meth:`_execute` inside a cgroup of the run's own, where one can be made."""
        group = self._new_group(limits)
        if group is None:
            if self.cgroups == "required":
                return RunResult(None, infra_error="local sandbox could not create the run's cgroup")
            return self._execute(launch, stdin, limits)
        try:
            result = self._execute(replace(launch, argv=group.enter_argv() + launch.argv), stdin, limits)
            out_of_memory = group.out_of_memory()
        finally:
            group.destroy()
        return replace(result, memory_exceeded=True) if out_of_memory else result

    def _new_group(self, limits: Limits) -> RunCgroup | None:
        if self.cgroups == "off":
            return None
        return RunCgroup.create(limits.memory_bytes + limits.max_scratch_bytes, limits.max_processes + 4)

    def _next_uid(self) -> int:
        with self._lock:
            return self._uid_base + next(self._uid_counter) % _UID_SPAN

    def _launch(
        self,
        command: Sequence[str],
        fds: dict[str, int],
        limits: Limits,
        uid: int | None,
        host_scratch: str | None,
        seccomp_fd: int | None,
    ) -> Launch:
        if self.isolation == "bwrap":
            return bwrap_launch(command, fds, limits, uid, host_scratch, seccomp_fd)
        assert host_scratch is not None
        if self.isolation == "unshare":
            return unshare_launch(command, limits, uid, host_scratch, self._seccomp)
        return rlimits_launch(command, limits, host_scratch, self._seccomp)

    def _execute(self, launch: Launch, stdin: bytes | None, limits: Limits) -> RunResult:
        start = time.monotonic()
        preexec = rlimits_preexec(launch.rlimits, launch.seccomp) if launch.rlimits is not None else None
        proc = subprocess.Popen(
            launch.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=clean_env(launch.scratch, NO_INVARIANTS if launch.rlimits is not None else FORK_EXEC_INVARIANTS),
            cwd=launch.cwd,
            pass_fds=launch.pass_fds,
            start_new_session=True,
            preexec_fn=preexec,  # rlimits isolation only; it only calls setrlimit and prctl
        )
        with self._lock:
            self._live.add(proc)
        try:
            out, err, truncated, timed_out = _pump(
                proc, stdin or b"", start + limits.wall_time, limits.max_output_bytes
            )
            if truncated or timed_out:
                _kill_tree(proc)
            try:
                code = proc.wait(timeout=max(0.1, start + limits.wall_time + 1.0 - time.monotonic()))
            except subprocess.TimeoutExpired:
                timed_out = True
                _kill_tree(proc)
                code = proc.wait()
        finally:
            _kill_tree(proc)
            with self._lock:
                self._live.discard(proc)
        return run_result(launch.argv[0], code, out, err, truncated, timed_out, time.monotonic() - start)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            live = list(self._live)
        for proc in live:
            _kill_tree(proc, close_streams=False)
        if self._zygotes is not None:
            self._zygotes.close()


def _host_scratch(blobs: Mapping[str, bytes], parent: str | None = None) -> str:
    root = tempfile.mkdtemp(prefix="rk-local-", dir=parent if parent and os.path.isdir(parent) else None)
    os.chmod(root, 0o1777)
    for rel, data in blobs.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), mode=0o1777, exist_ok=True)
        with open(path, "wb") as fh:
            fh.write(data)
        os.chmod(path, 0o444)
    return root


def _with_files(result: RunResult, root: str, collect: Sequence[str], cap: int) -> RunResult:
    found: dict[str, bytes] = {}
    for rel in collect:
        path = os.path.join(root, rel)
        if os.path.isfile(path) and not os.path.islink(path):
            with open(path, "rb") as fh:
                found[rel] = fh.read(cap)
    return replace(result, files=found)


def _pump(proc: subprocess.Popen[bytes], data: bytes, deadline: float, cap: int) -> tuple[bytes, bytes, bool, bool]:
    assert proc.stdin and proc.stdout and proc.stderr
    return pump_fds(
        proc.stdin.fileno(), proc.stdin.close, proc.stdout.fileno(), proc.stderr.fileno(), data, deadline, cap
    )


def _children(pid: int) -> list[int]:
    """Direct children of ``pid`` (scanning /proc: the ``children`` file needs CONFIG_PROC_CHILDREN)."""
    found: list[int] = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 1 and int(fields[1]) == pid:
            found.append(int(entry))
    return found


def _kill_tree(proc: subprocess.Popen[bytes], close_streams: bool = True) -> None:
    """SIGKILL the launcher's child first (the PID namespace's init: everything in it dies with it),
    then the launcher's process group. The child's parent-death signal cannot be relied on: dropping
    privileges with setpriv clears it."""
    if proc.returncode is None:
        for child in _children(proc.pid):
            try:
                os.kill(child, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            proc.kill()
        except ProcessLookupError:
            pass
    if not close_streams:  # another thread is reading them: it sees EOF once the tree is dead
        return
    for stream in (proc.stdout, proc.stderr, proc.stdin):
        if stream is not None and not stream.closed:
            try:
                stream.close()
            except OSError:
                pass
