"""The warm zygotes of one ``local`` sandbox: a pool of idle ones, and one code-harness run on one of them.

One zygote serves one run at a time; the pool keeps the idle ones (as many as runs went on at once) and
replaces any that broke (see :mod:`rewardkit.sandbox.local.zygote`). A run whose zygote failed before the
run existed is retried once on a fresh one; nothing of the program had run.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace

from rewardkit.sandbox.base import Limits, RunResult, WarmProgram
from rewardkit.sandbox.local.cgroup import RunCgroup
from rewardkit.sandbox.local.launch import clean_env, file_memfd
from rewardkit.sandbox.local.pump import pump_fds, run_result
from rewardkit.sandbox.local.zygote import Zygote, ZygoteFailure, make_zygote_dir
from rewardkit.sandbox.run_checks import SHARED_CGROUP_INVARIANTS, rlimits


@dataclass
class ZygotePool:
    """Idle zygotes of one sandbox, and the runs they serve (runs of ``warm``: its files are pre-imported)."""

    isolation: str
    seccomp: bytes | None
    warm: WarmProgram

    def __post_init__(self) -> None:
        self.harness = self.warm.all_files()
        self.zygote_dir: str | None = None  # made with the first zygote: a sandbox that runs no code makes none
        self._idle: list[Zygote] = []
        self._busy: set[Zygote] = set()
        self._lock = threading.Lock()
        self._closed = False

    def _acquire(self) -> Zygote:
        with self._lock:
            while self._idle:
                zygote = self._idle.pop()
                if zygote.alive():
                    self._busy.add(zygote)
                    return zygote
                zygote.kill()
        with self._lock:
            if self._closed:
                raise ZygoteFailure("the sandbox is closed")
            if self.zygote_dir is None:
                self.zygote_dir = make_zygote_dir(self.harness)
            zygote_dir = self.zygote_dir
        zygote = Zygote(self.isolation, zygote_dir, self.seccomp)
        with self._lock:
            self._busy.add(zygote)
        return zygote

    def _release(self, zygote: Zygote, healthy: bool) -> None:
        with self._lock:
            self._busy.discard(zygote)
            if healthy and not self._closed:
                self._idle.append(zygote)
                return
        zygote.kill()

    def run(
        self,
        files: Mapping[str, bytes],
        stdin: bytes,
        limits: Limits,
        uid: int | None,
        cgroups: str = "auto",
        entry: str = "code_supervisor",
    ) -> RunResult:
        """One run of the warm program ``entry`` (``WarmProgram.entry``: the zygote runs that program's main)."""
        program_files = {name: data for name, data in files.items() if self.harness.get(name) != data}
        request: dict[str, object] = {
            "op": "run",
            "entry": entry,
            "uid": uid,
            "rlimits": rlimits(limits),  # the same as a fork-exec run: supervisor and candidates share the uid
            "scratch_bytes": int(limits.max_scratch_bytes),
            "files": sorted(program_files),
        }
        for attempt in (1, 2):
            try:
                zygote = self._acquire()
            except ZygoteFailure as exc:
                return RunResult(None, infra_error=f"local sandbox: {exc}")
            try:
                group = zygote.group_for(limits) if cgroups != "off" else None
            except (OSError, ZygoteFailure):
                self._release(zygote, healthy=False)
                continue
            if group is None and cgroups == "required":
                self._release(zygote, healthy=True)
                return RunResult(None, infra_error="local sandbox could not create the run's cgroup")
            request["env"] = clean_env(zygote.scratch, SHARED_CGROUP_INVARIANTS)
            try:
                return self._run_once(zygote, request, program_files, stdin, limits, group)
            except ZygoteFailure as exc:  # before the run existed: nothing of the program ran
                self._release(zygote, healthy=False)
                if attempt == 2:
                    return RunResult(None, infra_error=f"local sandbox: the zygote failed: {exc}")
        return RunResult(None, infra_error="local sandbox: could not set up a zygote's cgroup")

    def _run_once(
        self,
        zygote: Zygote,
        request: dict[str, object],
        files: Mapping[str, bytes],
        stdin: bytes,
        limits: Limits,
        group: RunCgroup | None,
    ) -> RunResult:
        start = time.monotonic()
        stdin_r, stdin_w = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        oom_before = group.oom_kills() if group is not None else 0
        memfds = [file_memfd(name, files[name]) for name in request["files"]]  # type: ignore[attr-defined]
        ends = [stdin_r, out_w, err_w]
        try:
            go_w = zygote.start_run(request, [*ends, *memfds])
        except ZygoteFailure as exc:
            os.close(err_w)
            ends.remove(err_w)
            why = _pending(err_r)  # the run's first process says on stderr what it could not build
            for fd in (stdin_w, out_r, err_r):
                os.close(fd)
            raise ZygoteFailure(f"{exc}{': ' + why if why else ''}") from None
        except BaseException:
            for fd in (stdin_w, out_r, err_r):
                os.close(fd)
            raise
        finally:
            for fd in [*ends, *memfds]:
                os.close(fd)
        healthy = True
        try:
            os.write(go_w, b"1")
            os.close(go_w)
            out, err, truncated, timed_out = pump_fds(
                stdin_w,
                lambda: os.close(stdin_w),
                out_r,
                err_r,
                stdin,
                start + limits.wall_time,
                limits.max_output_bytes,
            )
            if truncated or timed_out:
                zygote.kill_run()
            try:
                code: int | None = zygote.end_run(max(3.0, start + limits.wall_time + 1.0 - time.monotonic()))
            except ZygoteFailure:
                # The run had started: whatever failed now may be its doing (an OOM kill that took the zygote,
                # say), so it is the run's failure (no report: scored as the program's), never a retryable
                # infrastructure failure that would spare it its penalty. The zygote is not reused.
                zygote.kill_run()
                healthy, code = False, None
        finally:
            os.close(out_r)
            os.close(err_r)
            oom = group is not None and group.oom_kills() > oom_before  # before a release may remove the group
            self._release(zygote, healthy)
        result = run_result("zygote", code, out, err, truncated, timed_out, time.monotonic() - start)
        return replace(result, memory_exceeded=True) if oom else result

    def pids(self) -> set[int]:
        """Host pids of the zygotes' processes (the launcher and the zygote itself), idle or busy."""
        with self._lock:
            zygotes = [*self._idle, *self._busy]
        return {pid for zygote in zygotes for pid in (zygote.proc.pid, zygote.pid)}

    def idle(self) -> list[Zygote]:
        with self._lock:
            return list(self._idle)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            zygotes = [*self._idle, *self._busy]
            self._idle.clear()
        for zygote in zygotes:
            zygote.kill()
        if self.zygote_dir is not None:
            shutil.rmtree(self.zygote_dir, ignore_errors=True)


def _pending(fd: int) -> str:
    """What is already in the pipe ``fd`` (its writers gone), as text, at most 2,000 bytes."""
    os.set_blocking(fd, False)
    try:
        return os.read(fd, 2000).decode("utf-8", "replace").strip()
    except OSError:
        return ""
