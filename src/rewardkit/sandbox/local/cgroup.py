"""Per-run cgroups for the local sandbox: one memory and process budget for the whole run.

rlimits cap each process; a cgroup caps the run (every process, and the pages of its tmpfs scratch
dir). Used when we may create cgroups (root, a writable v1 ``memory`` + ``pids`` hierarchy or a v2
hierarchy with both controllers). The group is made *inside the caller's own cgroup*, so limits
already placed on the caller (a container, a CI boundary) still hold for the run.
"""

from __future__ import annotations

import os
import signal
import time
import uuid
from dataclasses import dataclass

_ROOT = "/sys/fs/cgroup"


def _read(path: str) -> str:
    try:
        with open(path) as fh:
            return fh.read()
    except OSError:
        return ""


def _write(path: str, text: str) -> None:
    with open(path, "w") as fh:
        fh.write(text)


def _own_paths() -> dict[str, str]:
    """Controller name ('' for v2) -> this process's cgroup path."""
    paths = {}
    for line in _read("/proc/self/cgroup").splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        for controller in parts[1].split(",") if parts[1] else [""]:
            paths[controller] = parts[2]
    return paths


def _writable(path: str) -> bool:
    return os.path.isdir(path) and os.access(path, os.W_OK)


@dataclass
class RunCgroup:
    """One run's cgroup: ``dirs`` to enter, limits set, cleaned up by :meth:`destroy`."""

    dirs: list[str]
    version: int

    @classmethod
    def create(cls, memory_bytes: int, max_processes: int) -> RunCgroup | None:
        """A fresh group, or None when this machine does not let us make one."""
        if os.geteuid() != 0:
            return None
        own = _own_paths()
        name = f"rk-local-{uuid.uuid4().hex[:12]}"
        try:
            if "memory" in own and "pids" in own:
                memory = os.path.join(_ROOT, "memory", own["memory"].lstrip("/"))
                pids = os.path.join(_ROOT, "pids", own["pids"].lstrip("/"))
                if not (_writable(memory) and _writable(pids)):
                    return None
                group = cls([os.path.join(memory, name), os.path.join(pids, name)], 1)
                for d in group.dirs:
                    os.mkdir(d)
                _write(os.path.join(group.dirs[0], "memory.limit_in_bytes"), str(memory_bytes))
                _write(os.path.join(group.dirs[1], "pids.max"), str(max_processes))
                return group
            if "" in own and os.path.exists(os.path.join(_ROOT, "cgroup.controllers")):
                parent = os.path.join(_ROOT, own[""].lstrip("/"))
                if not (
                    {"memory", "pids"} <= set(_read(os.path.join(parent, "cgroup.subtree_control")).split())
                    and _writable(parent)
                ):
                    return None
                group = cls([os.path.join(parent, name)], 2)
                os.mkdir(group.dirs[0])
                _write(os.path.join(group.dirs[0], "memory.max"), str(memory_bytes))
                _write(os.path.join(group.dirs[0], "memory.swap.max"), "0")
                _write(os.path.join(group.dirs[0], "pids.max"), str(max_processes))
                return group
        except OSError:
            if "group" in locals():
                group.destroy()
            return None
        return None

    def enter_argv(self) -> list[str]:
        """A prefix that moves the launcher into the group before it starts anything."""
        moves = " && ".join(f'echo $$ > "{d}/cgroup.procs"' for d in self.dirs)
        return ["sh", "-c", f'{moves} && exec "$@"', "rk-cgroup"]

    def set_limits(self, memory_bytes: int, max_processes: int) -> None:
        """New caps for the next run of a reused group (a warm zygote's)."""
        names = ("memory.limit_in_bytes", "pids.max") if self.version == 1 else ("memory.max", "pids.max")
        _write(os.path.join(self.dirs[0], names[0]), str(memory_bytes))
        _write(os.path.join(self.dirs[-1], names[1]), str(max_processes))

    def processes(self) -> set[int]:
        return {int(p) for d in self.dirs for p in _read(os.path.join(d, "cgroup.procs")).split()}

    def oom_kills(self) -> int:
        """How many times the kernel's OOM killer ran in the group so far (a reused group: compare)."""
        name = "memory.oom_control" if self.version == 1 else "memory.events"
        for line in _read(os.path.join(self.dirs[0], name)).splitlines():
            fields = line.split()
            if len(fields) == 2 and fields[0] == "oom_kill":
                return int(fields[1])
        return 0

    def add(self, pid: int) -> None:
        """Move process ``pid`` (by its pid on this host) into the group; raises OSError if it cannot."""
        for d in self.dirs:
            _write(os.path.join(d, "cgroup.procs"), str(pid))

    def out_of_memory(self) -> bool:
        if self.version == 1:
            control = _read(os.path.join(self.dirs[0], "memory.oom_control"))
            return any(
                line.split()[0] in ("oom_kill", "under_oom") and line.split()[1] != "0"
                for line in control.splitlines()
                if len(line.split()) == 2
            )
        events = _read(os.path.join(self.dirs[0], "memory.events"))
        return any(
            line.split()[0] in ("oom", "oom_kill") and line.split()[1] != "0"
            for line in events.splitlines()
            if len(line.split()) == 2
        )

    def destroy(self) -> None:
        """Kill whatever is left in the group, then remove it (a dying process keeps it busy a moment)."""
        end = time.monotonic() + 5.0
        while time.monotonic() < end:
            left = {int(p) for d in self.dirs for p in _read(os.path.join(d, "cgroup.procs")).split()}
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            for d in list(self.dirs):
                try:
                    os.rmdir(d)
                except FileNotFoundError:
                    pass
                except OSError:
                    continue
                self.dirs.remove(d)
            if not self.dirs:
                return
            time.sleep(0.01)
