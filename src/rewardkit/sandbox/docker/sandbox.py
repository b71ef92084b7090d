"""The ``docker`` sandbox backend: untrusted programs run in a warm pool of locked-down containers.

Each container: no network, read-only root filesystem, tmpfs scratch (``/tmp``), memory, pids and CPU
caps, no new privileges, every capability dropped but the three (SETUID, SETGID, KILL) the in-container
supervisor (root, PID 1's sibling) needs to drop privileges and to kill what a run left. The program runs
as an unprivileged uid of its own (one per container, from a high range no host user has), with no
capabilities, in its own session, under rlimits, behind a seccomp guard that keeps its descendants from
signalling it (the local backend's PID-1 semantics). After each run the supervisor kills every process the
run left (double-forked daemons included) and wipes /tmp, /dev/shm, /dev/mqueue and SysV IPC; a container
that cannot be shown clean, or that died, is replaced by a fresh one. ``fresh_container_per_run=True``
replaces the container after every run instead (slower; see BENCHMARKS.md). Given a ``warm`` program (the
code verifier passes its harness), each container's supervisor is a zygote that has imported its files once, and
a run of it runs in processes forked for it before its request arrived (no interpreter start per run;
``docker/container/zygote.py``).
See docs/sandbox-docker.md.

``DOCKER_HOST`` (and the other ``docker.from_env`` variables) choose the engine, so a remote engine works.
"""

from __future__ import annotations

import base64
import os
import threading
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from rewardkit._errors import ConfigError, SandboxError
from rewardkit.sandbox.base import Limits, RunResult, Sandbox, WarmProgram
from rewardkit.sandbox.docker.image_build import DEFAULT_IMAGE, docker_client
from rewardkit.sandbox.docker.image_languages import LANGUAGE_PACKAGES, LANGUAGES_IMAGE, LANGUAGES_LABEL
from rewardkit.sandbox.docker.pool import ContainerPool, ContainerSpec, RunLost, Slot, container_oom_kills
from rewardkit.sandbox.run_checks import SHARED_CGROUP_INVARIANTS, check_run, clean_env, ran_out_of_memory

SCRATCH_DIR = "/tmp/run"
# The whole environment a program sees (the same as the local backend's): nothing inherited.
CLEAN_ENV = clean_env("/usr/local/bin:/usr/bin:/bin", SCRATCH_DIR, invariants=SHARED_CGROUP_INVARIANTS)
# Seconds the host waits beyond the wall-clock limit for the supervisor's answer before it gives up.
ANSWER_GRACE = 30.0


class DockerSandbox(Sandbox):
    """Runs each command in a warm, locked-down container; safe to call ``run`` from many threads.

    ``image``: the sandbox image (build it with ``rewardkit sandbox-image``); ``pool_size``: warm containers, i.e.
    runs at once (default: the CPU count, between 2 and 8); ``limits``: the default :class:`Limits` of a run, which
    also size the containers' cgroup caps (a run asking for more raises its container's caps first); ``cpus``: CPU
    cap per container; ``scratch_bytes``: size of the /tmp tmpfs of the container and of the zygote's pre-built
    harness runs (default ``limits.max_scratch_bytes``; any other run's scratch tmpfs has its own limits'
    ``max_scratch_bytes``, as in the local backend); ``shm_bytes``: size of /dev/shm; ``fresh_container_per_run``:
    replace the container after every run instead of wiping it; ``env``: extra environment variables for programs;
    ``runtime``: an engine runtime such as ``runsc`` (gVisor) for a stronger boundary than runc's; ``warm``: the
    program (:class:`WarmProgram`, the code verifier's harness) a zygote may keep warm; ``zygote``: each
    container's supervisor imports the ``warm`` program's files once and forks a run's processes instead of starting
    interpreters: ``"auto"`` (the default: when there is a ``warm`` program), ``True`` (a SandboxError without one)
    or ``False`` (the per-run exec path, for comparison or as a fallback). Other commands run the same way in both
    modes.
    """

    name = "docker"

    def __init__(
        self,
        *,
        image: str = DEFAULT_IMAGE,
        pool_size: int | None = None,
        limits: Limits | None = None,
        cpus: float = 1.0,
        scratch_bytes: int | None = None,
        shm_bytes: int = 16 << 20,
        fresh_container_per_run: bool = False,
        env: Mapping[str, str] | None = None,
        runtime: str | None = None,
        zygote: bool | str = "auto",
        warm: WarmProgram | None = None,
    ) -> None:
        if limits is not None and not isinstance(limits, Limits):
            raise ConfigError(f"limits must be a rewardkit.sandbox.base.Limits, got {type(limits).__name__}")
        if pool_size is None:
            pool_size = min(8, max(2, os.cpu_count() or 1))
        if not isinstance(pool_size, int) or isinstance(pool_size, bool) or pool_size < 1:
            raise ConfigError(f"pool_size must be an integer >= 1, got {pool_size!r}")
        if cpus <= 0:
            raise ConfigError(f"cpus must be > 0, got {cpus!r}")
        if zygote not in (True, False, "auto"):
            raise SandboxError(f"docker sandbox: zygote must be true, false or 'auto', got {zygote!r}")
        if zygote is True and warm is None:
            raise SandboxError(
                "docker sandbox: zygote=true needs warm=..., the program a zygote keeps warm (the code verifier "
                "passes rewardkit.verifiers.code_tests.job.warm_program()); set zygote: false or 'auto'"
            )
        self.image = image
        self.limits = limits or Limits()
        self.fresh_container_per_run = fresh_container_per_run
        self.env = {**CLEAN_ENV, **(env or {})}
        self._closed = False
        self._warned_unguarded = False
        self._close_lock = threading.Lock()
        self.client = docker_client()
        self.languages: tuple[str, ...] = ()  # the image's label: the native toolchains it holds
        self._require_image()
        spec = ContainerSpec(
            image=image,
            memory_bytes=self.limits.memory_bytes,
            pids=self.limits.max_processes,
            cpus=cpus,
            tmpfs_bytes=int(scratch_bytes or self.limits.max_scratch_bytes),
            shm_bytes=shm_bytes,
            runtime=runtime,
        )
        self.warm = warm if zygote is not False else None
        self.zygote = self.warm is not None
        self.forked_runs = 0  # warm runs the zygote served by forking (the rest exec'd their command)
        self._harness = dict(self.warm.files) if self.warm is not None else {}
        harness = {name: data.decode() for name, data in self._harness.items()} if self.zygote else None
        self.pool = ContainerPool(self.client, spec, pool_size, harness=harness)

    @property
    def pool_id(self) -> str:
        """The value of the ``org.rewardkit.sandbox.pool`` label on every container this sandbox made."""
        return self.pool.pool_id

    def _require_image(self) -> None:
        import docker

        try:
            labels = self.client.images.get(self.image).labels or {}
        except docker.errors.ImageNotFound:
            raise SandboxError(
                f"the sandbox image {self.image!r} is not on the Docker engine; build it with "
                f"`rewardkit sandbox-image --image {self.image}` (or `make sandbox-image`)"
            ) from None
        except docker.errors.APIError as exc:
            raise SandboxError(f"cannot inspect the sandbox image {self.image!r}: {exc}") from None
        self.languages = tuple(name for name in labels.get(LANGUAGES_LABEL, "").split(",") if name)

    def toolchain_hint(self) -> str:
        if set(LANGUAGE_PACKAGES) <= set(self.languages):
            return ""
        held = f"the toolchains of {', '.join(self.languages)} only" if self.languages else "no native toolchain"
        return (
            f"the image {self.image} holds {held}: build {LANGUAGES_IMAGE} (`rewardkit sandbox-image --languages "
            f"all`) and pass sandbox_options={{'image': '{LANGUAGES_IMAGE}'}}"
        )

    def run(
        self,
        command: Sequence[str],
        files: Mapping[str, bytes | str],
        *,
        stdin: bytes | None = None,
        limits: Limits | None = None,
        collect: Sequence[str] = (),
    ) -> RunResult:
        check_run("docker", self._closed, command, [*files, *collect])
        limits = limits or self.limits
        harness = self._is_harness_job(command, files)
        request = {
            "harness": harness,
            "command": [str(part) for part in command],
            "files": {path: _b64(data) for path, data in files.items() if not (harness and path in self._harness)},
            "stdin": _b64(stdin or b""),
            "limits": asdict(limits),
            "collect": list(collect),
            "env": self.env,
            "scratch": SCRATCH_DIR,
        }
        timeout = limits.wall_time + ANSWER_GRACE
        started = time.monotonic()
        last_error = ""
        for _attempt in range(2):  # a dead container is replaced and the run retried once
            slot = self.pool.acquire()  # bounded: every run ends within its wall time + ANSWER_GRACE
            try:
                self.pool.ensure_caps(slot, limits.memory_bytes, limits.max_processes, limits.max_scratch_bytes)
                chosen = request
                if harness and not slot.channel.harness_loaded:  # this container's zygote could not import it
                    chosen = {**request, "harness": False, "files": {p: _b64(d) for p, d in files.items()}}
                answer = slot.channel.call({**chosen, "uid": slot.uid, "gid": slot.uid}, timeout)
            except RunLost:
                # The program had started: what killed the supervisor may be its doing (an OOM kill in the
                # container, say). The run is the program's failure, scored from what it left (no report),
                # never retried as the infrastructure's: that would spare it its penalty.
                ooms = container_oom_kills(slot.container.id)
                self.pool.replace(slot)
                elapsed = time.monotonic() - started
                return RunResult(
                    exit_code=None,
                    duration=elapsed,
                    timed_out=elapsed >= limits.wall_time,
                    memory_exceeded=ooms is not None and ooms > slot.ooms,
                )
            except SandboxError as exc:
                last_error = str(exc)
                self.pool.replace(slot, wait=True)
                continue
            except Exception as exc:  # noqa: BLE001 - an engine error must not escape as anything else
                last_error = f"{type(exc).__name__}: {exc}"
                self.pool.replace(slot, wait=True)
                continue
            self._after_run(slot, answer)
            return _to_result(answer)
        return RunResult(
            exit_code=None,
            duration=time.monotonic() - started,
            infra_error=f"docker sandbox failed twice; last error: {last_error}",
        )

    def _is_harness_job(self, command: Sequence[str], files: Mapping[str, bytes | str]) -> bool:
        """A run of the ``warm`` program, whose files are the ones the zygotes imported: run it forked."""
        return self.warm is not None and self.warm.serves(command, files)

    def _after_run(self, slot: Slot, answer: dict[str, Any]) -> None:
        if answer.get("oom_killed"):
            slot.ooms = container_oom_kills(slot.container.id) or slot.ooms
        if answer.get("zygote"):
            self.forked_runs += 1
        if not answer.get("guarded", True) and not self._warned_unguarded:
            self._warned_unguarded = True
            warnings.warn(
                f"docker sandbox: image {self.image!r} has no ctypes (or an unknown CPU architecture), so the "
                "seccomp signal guard is off: a program can kill the command that started it (the code "
                "verifier then scores it 0 rather than by its tests); use an image with the full python3",
                RuntimeWarning,
                stacklevel=3,
            )
        if self.fresh_container_per_run or not answer.get("clean", False):
            self.pool.replace(slot)
        else:
            self.pool.release(slot)

    def close(self) -> None:
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
        pool = getattr(self, "pool", None)
        if pool is not None:
            pool.close()


def _b64(data: bytes | str) -> str:
    raw = data.encode() if isinstance(data, str) else bytes(data)
    return base64.b64encode(raw).decode()


def _to_result(answer: dict[str, Any]) -> RunResult:
    stderr = base64.b64decode(answer["stderr"])
    timed_out = bool(answer["timed_out"])
    memory_exceeded = not timed_out and (bool(answer.get("oom_killed")) or ran_out_of_memory(stderr))
    return RunResult(
        exit_code=answer["exit_code"],
        stdout=base64.b64decode(answer["stdout"]),
        stderr=stderr,
        duration=float(answer["duration"]),
        timed_out=timed_out,
        memory_exceeded=memory_exceeded,
        output_truncated=bool(answer["output_truncated"]),
        signal=answer.get("signal"),
        files={name: base64.b64decode(data) for name, data in answer.get("files", {}).items()},
        infra_error=f"docker sandbox: {answer['start_error']}" if answer.get("start_error") else None,
    )
