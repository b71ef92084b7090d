"""The outer disposable boundary the hostile suite runs in: own PID, network and mount namespaces, a
private /tmp, and a fresh cgroup capping processes and memory. Should the sandbox under test fail,
a fork bomb or ``kill(-1)`` still stays inside it, and everything in it is killed on the way out.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass

MARKER_ENV = "RK_HOSTILE_BOUNDARY"
CGROUP_PREFIX = "rkhostile."
_V1 = ("/sys/fs/cgroup/pids", "/sys/fs/cgroup/memory")
_V2 = "/sys/fs/cgroup"


@dataclass
class Cgroup:
    """A cgroup (v1 pids+memory pair, or one v2 group) with caps on processes and memory."""

    dirs: list[str]
    version: int

    @classmethod
    def create(cls, pids_max: int, memory_bytes: int) -> Cgroup:
        name = CGROUP_PREFIX + uuid.uuid4().hex[:10]
        if all(os.path.isdir(d) for d in _V1):
            pids, memory = (os.path.join(d, name) for d in _V1)
            os.mkdir(pids)
            os.mkdir(memory)
            group = cls([pids, memory], 1)
            _write(os.path.join(pids, "pids.max"), str(pids_max))
            _write(os.path.join(memory, "memory.limit_in_bytes"), str(memory_bytes))
            return group
        controllers = _read(os.path.join(_V2, "cgroup.controllers")).split()
        if "pids" in controllers and "memory" in controllers:
            _write(os.path.join(_V2, "cgroup.subtree_control"), "+pids +memory")
            path = os.path.join(_V2, name)
            os.mkdir(path)
            group = cls([path], 2)
            _write(os.path.join(path, "pids.max"), str(pids_max))
            _write(os.path.join(path, "memory.max"), str(memory_bytes))
            _write(os.path.join(path, "memory.swap.max"), "0")
            return group
        raise OSError("no usable cgroup (v1 pids+memory or v2 with the pids and memory controllers)")

    def enter_command(self) -> str:
        """Shell that moves the current shell ($$) into the group."""
        return " && ".join(f'echo $$ > "{d}/cgroup.procs"' for d in self.dirs)

    def pids(self) -> list[int]:
        """Every process in the group or in a group nested in it (the local sandbox nests one per run)."""
        found: set[int] = set()
        for d in self.dirs:
            for root, _, _ in os.walk(d):
                try:
                    found.update(int(x) for x in _read(os.path.join(root, "cgroup.procs")).split())
                except ValueError:
                    pass
        return sorted(found)

    def destroy(self) -> None:
        """Kill everything in the group and its nested groups, then remove them, innermost first."""
        end = time.monotonic() + 10.0
        while time.monotonic() < end:
            for pid in self.pids():
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            for d in self.dirs:
                for root, _, _ in sorted(os.walk(d), key=lambda w: -w[0].count("/")):
                    try:
                        os.rmdir(root)
                    except OSError:
                        pass
            if not any(os.path.isdir(d) for d in self.dirs):
                return
            time.sleep(0.05)


def _write(path: str, text: str) -> None:
    with open(path, "w") as fh:
        fh.write(text)


def _read(path: str) -> str:
    try:
        with open(path) as fh:
            return fh.read()
    except FileNotFoundError:
        return ""


def unavailable_reason() -> str | None:
    """Why the boundary cannot be built here, or None when it can."""
    if os.geteuid() != 0:
        return "the hostile-code boundary needs root (namespaces and cgroups)"
    if shutil.which("unshare") is None:
        return "the hostile-code boundary needs util-linux unshare"
    if not (all(os.path.isdir(d) for d in _V1) or os.path.exists(os.path.join(_V2, "cgroup.controllers"))):
        return "the hostile-code boundary needs a writable cgroup hierarchy (v1 pids+memory or v2)"
    return None


def _paths_under_tmp(extra: list[str]) -> list[str]:
    """The checkout, the venv and the working dir, where they live under /tmp (a CI clone may)."""
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    pythonpath = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    found = sorted({os.path.realpath(p) for p in [repo, sys.prefix, os.getcwd(), *pythonpath, *extra] if p})
    kept: list[str] = []
    for path in found:
        if path.startswith("/tmp/") and not any(path.startswith(k + "/") for k in kept):
            kept.append(path)
    return kept


def private_tmp_script(extra_paths: list[str] | None = None) -> str:
    """Shell that mounts a private tmpfs on /tmp (and /var/tmp) and binds back what the run needs from the old /tmp."""
    keep = _paths_under_tmp(extra_paths or [])
    hold = ["mount -t tmpfs rk-hold /mnt"] if keep else []
    restore = []
    for i, path in enumerate(keep):
        hold.append(f'mkdir /mnt/{i} && mount --bind "{path}" /mnt/{i}')
        restore.append(f'mkdir -p "{path}" && mount --bind /mnt/{i} "{path}"')
    steps = ["mount --make-rprivate /", *hold, "mount -t tmpfs -o size=512m rk-boundary /tmp", *restore]
    # /var/tmp too (where the unshare level stages a run's files): what runs outside the boundary leave there at
    # the same time is none of its business
    steps.append("{ [ ! -d /var/tmp ] || mount -t tmpfs -o size=256m rk-boundary-var /var/tmp; }")
    return " && ".join(steps)


def run_inside(
    argv: list[str],
    *,
    env: dict[str, str],
    timeout: float,
    pids_max: int = 1024,
    memory_bytes: int = 6 << 30,
    cwd: str | None = None,
    stdin: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` inside a fresh boundary; kill everything left in it afterwards."""
    group = Cgroup.create(pids_max, memory_bytes)
    token = uuid.uuid4().hex
    inner = f'ip link set lo up 2>/dev/null; {private_tmp_script([cwd] if cwd else [])} && exec "$@"'
    script = (
        f"{group.enter_command()} && exec unshare --pid --fork --kill-child --mount-proc --net --mount -- "
        f"sh -c '{inner}' rk-boundary \"$@\""
    )
    try:
        return subprocess.run(
            ["sh", "-c", script, "rk-enter", *argv],
            env={**env, MARKER_ENV: token, "RK_HOSTILE_CGROUP": os.path.basename(group.dirs[0])},
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=cwd,
            check=False,
            input=stdin,
        )
    finally:
        group.destroy()


def inside_boundary() -> str | None:
    """None when this process runs inside the boundary, else what is missing."""
    if not os.environ.get(MARKER_ENV):
        return f"{MARKER_ENV} is not set"
    cgroup = os.environ.get("RK_HOSTILE_CGROUP", "")
    if not cgroup.startswith(CGROUP_PREFIX) or cgroup not in _read("/proc/self/cgroup"):
        return "this process is not in the boundary's cgroup"
    if [name for _, name in socket.if_nameindex() if name != "lo"]:
        return "this process can see network interfaces other than lo"
    if os.getpid() > 1000:
        return "this process is not in a fresh PID namespace"
    return None


HOSTILE_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(os.path.dirname(HOSTILE_DIR))
REFUSAL = "refusing to run hostile programs outside the disposable boundary"


def import_bare(module: str) -> subprocess.CompletedProcess[str]:
    """Import a hostile-program module outside any boundary (it must refuse)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RK_HOSTILE")}
    return subprocess.run(
        [sys.executable, "-c", f"import {module}"],
        cwd=HOSTILE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def pytest_inside(programs_file: str) -> tuple[subprocess.CompletedProcess[str], str]:
    """Run one hostile-program module's tests with pytest inside a fresh boundary; (result, report)."""
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "CI", "PYTHONPATH")}
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"]
    argv += [os.path.join(HOSTILE_DIR, programs_file), "-o", "addopts=-ra", "--timeout=300"]
    done = run_inside(argv, env=env, timeout=1500, pids_max=512, memory_bytes=4 << 30, cwd=REPO_ROOT)
    return done, (done.stdout[-6000:] + "\n" + done.stderr[-3000:]).strip()
