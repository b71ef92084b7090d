"""A warm pool of locked-down sandbox containers, and the exec channel to the supervisor inside them."""

from __future__ import annotations

import contextlib
import json
import queue
import random
import struct
import threading
import time
import uuid
import weakref
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rewardkit._errors import SandboxError
from rewardkit.sandbox.docker.container import CONTAINER_FILES

LABEL = "org.rewardkit.sandbox"
POOL_LABEL = "org.rewardkit.sandbox.pool"
SUPERVISOR_SOURCE = "\n".join(
    path.read_text()
    for path in (
        *(Path(__file__).parent.parent / name for name in ("seccomp_bpf.py", "run_world.py")),
        *(Path(__file__).parent / "container" / name for name in CONTAINER_FILES),
    )
)
# PID 1 of every container: reaps the orphans that killed daemons leave behind, and is the one process the
# supervisor's kill(-1) spares (docker's own --init would have a child that kill(-1) takes down, and the
# container with it).
REAPER_SOURCE = """
import os, signal
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
while True:
    signal.sigwait({signal.SIGCHLD})
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            break
"""
# Room the supervisor, PID 1 and the template need on top of the program's own caps.
EXTRA_PIDS = 16
# What the root supervisor needs to build each run's world (run_init.py): drop to the run uid, kill, make
# namespaces and mounts, bring lo up in a fresh network namespace, empty the run's bounding set. Every process
# of a run holds none of them (no capability in any set, no_new_privs, the seccomp deny list).
SUPERVISOR_CAPS = ("SETUID", "SETGID", "KILL", "SYS_ADMIN", "NET_ADMIN", "SETPCAP")
# Programs run as a uid no one else on the host uses (like the local backend's), one per container.
UID_FLOOR, UID_SPAN = 2_000_000, 4096
EXTRA_MEMORY = 96 << 20


@dataclass(frozen=True)
class ContainerSpec:
    """How every container of a pool is made. Sizes in bytes."""

    image: str
    memory_bytes: int
    pids: int
    cpus: float
    tmpfs_bytes: int
    shm_bytes: int
    runtime: str | None = None
    labels: dict[str, str] = field(default_factory=dict)

    def run_kwargs(self) -> dict[str, Any]:
        memory = self.memory_bytes + self.tmpfs_bytes + self.shm_bytes + EXTRA_MEMORY
        extra = {"runtime": self.runtime} if self.runtime else {}
        return {
            **extra,
            "image": self.image,
            "command": ["python3", "-I", "-S", "-c", REAPER_SOURCE],
            "detach": True,
            "user": "0:0",  # the supervisor; programs run as self.uid with no capabilities at all
            "cap_drop": ["ALL"],
            "cap_add": list(SUPERVISOR_CAPS),
            "security_opt": ["no-new-privileges"],
            "network_mode": "none",
            "read_only": True,
            "tmpfs": {"/tmp": f"rw,nosuid,nodev,size={self.tmpfs_bytes},mode=1777"},
            "shm_size": self.shm_bytes,
            "mem_limit": memory,
            "memswap_limit": memory,
            "pids_limit": self.pids + EXTRA_PIDS,
            "nano_cpus": int(self.cpus * 1e9),
            "ipc_mode": "private",
            "hostname": "sandbox",
            "log_config": {"type": "none", "config": {}},
            "labels": {LABEL: "1", **self.labels},
        }


@dataclass
class Slot:
    """One warm container and the caps it currently has."""

    container: Any
    channel: SupervisorChannel
    memory_bytes: int
    pids: int
    uid: int
    runs: int = 0
    ooms: int = 0  # OOM kills in its cgroup as of the last answer


# Where a container's memory cgroup lies on this host, by cgroup version and driver (a remote engine: none).
_OOM_FILES = (
    ("/sys/fs/cgroup/memory/docker/{id}/memory.oom_control", "oom_kill"),
    ("/sys/fs/cgroup/memory/system.slice/docker-{id}.scope/memory.oom_control", "oom_kill"),
    ("/sys/fs/cgroup/system.slice/docker-{id}.scope/memory.events", "oom_kill"),
    ("/sys/fs/cgroup/docker/{id}/memory.events", "oom_kill"),
)


def container_oom_kills(container_id: str) -> int | None:
    """OOM kills so far in the container's memory cgroup, read on this host; None where it cannot be read."""
    for template, key in _OOM_FILES:
        try:
            with open(template.format(id=container_id)) as fh:
                for line in fh:
                    name, _, value = line.partition(" ")
                    if name == key:
                        return int(value)
        except (OSError, ValueError):
            continue
    return None


def remove_pool_containers(client: Any, pool_id: str) -> int:
    """Force-remove every container carrying this pool's label; return how many were removed."""
    removed = 0
    try:
        found = client.containers.list(all=True, filters={"label": f"{POOL_LABEL}={pool_id}"})
    except Exception:  # noqa: BLE001 - the engine may be gone; nothing more can be done
        return 0
    for container in found:
        with contextlib.suppress(Exception):
            container.remove(force=True)
            removed += 1
    return removed


class ContainerPool:
    """``size`` warm containers; a container is checked out for one run at a time and replaced when dirty."""

    def __init__(self, client: Any, spec: ContainerSpec, size: int, *, harness: dict[str, str] | None = None) -> None:
        """``harness``: the code harness's sources (file name -> text) to start each container's supervisor as
        a zygote that imported them (see zygote.py); None: the per-run exec supervisor."""
        if size < 1:
            raise SandboxError(f"pool_size must be at least 1, got {size}")
        self.client = client
        self.pool_id = uuid.uuid4().hex[:12]
        self.spec = ContainerSpec(**{**spec.__dict__, "labels": {**spec.labels, POOL_LABEL: self.pool_id}})
        self.size = size
        self.harness = harness
        self._idle: queue.Queue[Slot | None] = queue.Queue()
        self._closed = False
        self._lock = threading.Lock()
        self._spawner = ThreadPoolExecutor(max_workers=min(size, 4), thread_name_prefix="rk-docker-pool")
        self._finalizer = weakref.finalize(self, remove_pool_containers, client, self.pool_id)
        self.replaced = 0
        self._uid_base = UID_FLOOR + random.randrange(1000) * UID_SPAN
        self._uid_counter = 0
        futures = [self._spawner.submit(self._start_slot) for _ in range(size)]
        errors = [f.exception() for f in futures if f.exception() is not None]
        if errors:
            self.close()
            raise SandboxError(f"could not start sandbox containers from {spec.image}: {errors[0]}")
        for f in futures:
            self._idle.put(f.result())

    @property
    def label_filter(self) -> dict[str, str]:
        return {"label": f"{POOL_LABEL}={self.pool_id}"}

    def _start_slot(self) -> Slot:
        try:
            container = self.client.containers.run(**self.spec.run_kwargs())
        except Exception as exc:  # noqa: BLE001
            raise SandboxError(f"docker run of {self.spec.image} failed: {exc}") from None
        uid = self._next_uid()
        try:
            channel = SupervisorChannel(self.client, container.id, zygote=self.harness is not None)
            channel.start(uid, self.spec, self.harness)
        except SandboxError:
            container.remove(force=True)
            raise
        return Slot(container, channel, self.spec.memory_bytes, self.spec.pids, uid)

    def _next_uid(self) -> int:
        """A uid of its own per container, so RLIMIT_NPROC counts one run's processes and nothing else."""
        with self._lock:
            self._uid_counter += 1
            return self._uid_base + self._uid_counter % UID_SPAN

    def acquire(self, timeout: float | None = None) -> Slot:
        if self._closed:
            raise SandboxError("the docker sandbox is closed")
        try:
            slot = self._idle.get(timeout=timeout)
        except queue.Empty:
            raise SandboxError(f"no sandbox container became free within {timeout} s") from None
        if slot is None:  # close() wakes waiters with None
            self._idle.put(None)
            raise SandboxError("the docker sandbox is closed")
        return slot

    def release(self, slot: Slot) -> None:
        slot.runs += 1
        with self._lock:
            if self._closed:
                self._remove(slot)
                return
        self._idle.put(slot)

    def replace(self, slot: Slot, *, wait: bool = False) -> None:
        """Throw ``slot``'s container away and put a fresh one in the pool (in the background unless ``wait``)."""
        with self._lock:
            self.replaced += 1
            if self._closed:
                self._remove(slot)
                return
            future = self._spawner.submit(self._replace, slot)
        if wait:
            future.result()

    def _replace(self, slot: Slot) -> None:
        self._remove(slot)
        for attempt in range(3):
            try:
                fresh = self._start_slot()
            except SandboxError:
                if attempt == 2:
                    self._idle.put(slot)  # hand back the dead slot: the next run reports the engine error
                    return
                continue
            with self._lock:
                if self._closed:
                    self._remove(fresh)
                    return
            self._idle.put(fresh)
            return

    def _remove(self, slot: Slot) -> None:
        slot.channel.close()
        with contextlib.suppress(Exception):  # already gone is fine
            slot.container.remove(force=True)

    def ensure_caps(self, slot: Slot, memory_bytes: int, pids: int, scratch_bytes: int = 0) -> None:
        """Raise a container's cgroup caps when one run asks for more than the pool was made with (memory, processes,
        or a scratch tmpfs larger than the container's, whose pages count against the container's memory)."""
        memory_bytes += max(0, scratch_bytes - self.spec.tmpfs_bytes)
        if memory_bytes <= slot.memory_bytes and pids <= slot.pids:
            return
        memory = max(memory_bytes, slot.memory_bytes)
        total = memory + self.spec.tmpfs_bytes + self.spec.shm_bytes + EXTRA_MEMORY
        slot.container.update(mem_limit=total, memswap_limit=total)
        if pids > slot.pids:
            # docker-py's update() has no pids_limit argument; the engine API does.
            self.client.api._post_json(
                self.client.api._url("/containers/{0}/update", slot.container.id), data={"PidsLimit": pids + EXTRA_PIDS}
            ).raise_for_status()
        slot.memory_bytes, slot.pids = memory, max(pids, slot.pids)

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._spawner.shutdown(wait=True)
        while True:
            try:
                slot = self._idle.get_nowait()
            except queue.Empty:
                break
            if slot is not None:
                self._remove(slot)
        self._idle.put(None)
        remove_pool_containers(self.client, self.pool_id)
        self._finalizer.detach()


class RunLost(SandboxError):
    """The supervisor failed after it had started the run's program: what failed may be the program's doing
    (an OOM kill that took the supervisor, say), so the run is not retried."""


class SupervisorChannel:
    """A long-lived ``docker exec`` of the supervisor in one container, spoken to over the hijacked socket."""

    def __init__(self, client: Any, container_id: str, *, zygote: bool = False) -> None:
        self.container_id = container_id
        self.harness_loaded = False
        entry = "zygote_main()" if zygote else "main()"
        try:
            exec_id = client.api.exec_create(
                container_id,
                ["python3", "-I", "-S", "-c", f"{SUPERVISOR_SOURCE}\n{entry}\n"],
                stdin=True,
                stdout=True,
                stderr=True,
                user="0:0",
            )["Id"]
            self._sock = client.api.exec_start(exec_id, socket=True)
        except Exception as exc:  # noqa: BLE001
            raise SandboxError(f"docker exec in container {container_id[:12]} failed: {exc}") from None
        self._raw = getattr(self._sock, "_sock", self._sock)
        self._pending = bytearray()
        self._stdout = bytearray()
        self._stderr = bytearray()

    def start(self, uid: int, spec: ContainerSpec, harness: dict[str, str] | None, timeout: float = 60.0) -> None:
        """The supervisor's first message: the run uid, the sizes of a run's tmpfs, and (for a zygote) the harness
        modules it imports once. It answers once it has shown it can build a run's world."""
        init = {"uid": uid, "scratch_bytes": spec.tmpfs_bytes, "shm_bytes": spec.shm_bytes, "harness": harness or {}}
        answer = self.call(init, timeout)
        if answer.get("error"):
            raise SandboxError(
                f"the sandbox container {self.container_id[:12]} cannot give a run namespaces of its own "
                f"({answer['error']}): the supervisor needs mounts and namespaces inside the container (a host "
                "AppArmor profile or a rootless engine can refuse them; see docs/sandbox-docker.md)"
            )
        if not answer.get("ready"):
            raise SandboxError(f"the sandbox supervisor in {self.container_id[:12]} did not start: {answer}")
        self.harness_loaded = bool(answer.get("harness"))

    def call(self, request: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Send one request; return the supervisor's answer or raise SandboxError (then discard the channel):
        a :class:`RunLost` once the supervisor has said the run started."""
        payload = json.dumps(request).encode()
        deadline = time.monotonic() + timeout
        started = False
        try:
            self._raw.settimeout(timeout)
            self._raw.sendall(struct.pack(">Q", len(payload)) + payload)
            while True:
                size = struct.unpack(">Q", self._read_stdout(8, deadline))[0]
                answer: dict[str, Any] = json.loads(self._read_stdout(size, deadline))
                if answer != {"started": True}:
                    break
                started = True
        except (OSError, EOFError, ValueError) as exc:
            tail = bytes(self._stderr[-800:]).decode(errors="replace")
            error = RunLost if started else SandboxError
            raise error(
                f"the sandbox supervisor in {self.container_id[:12]} gave no answer ({type(exc).__name__}: "
                f"{exc}); its stderr: {tail!r}"
            ) from None
        if "supervisor_error" in answer:
            error = RunLost if started else SandboxError
            raise error(f"the sandbox supervisor failed: {answer['supervisor_error']}")
        return answer

    def _read_stdout(self, n: int, deadline: float) -> bytes:
        while len(self._stdout) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer before the deadline")
            self._raw.settimeout(left)
            chunk = self._raw.recv(1 << 16)
            if not chunk:
                raise EOFError("the supervisor exited")
            self._pending += chunk
            self._demux()
        data = bytes(self._stdout[:n])
        del self._stdout[:n]
        return data

    def _demux(self) -> None:
        """Docker's attach stream: frames of an 8-byte header (stream id, 3 zero bytes, size) and data."""
        while len(self._pending) >= 8:
            stream, size = self._pending[0], struct.unpack(">I", self._pending[4:8])[0]
            if len(self._pending) < 8 + size:
                return
            target = self._stderr if stream == 2 else self._stdout
            target += self._pending[8 : 8 + size]
            del self._pending[: 8 + size]

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._sock.close()
