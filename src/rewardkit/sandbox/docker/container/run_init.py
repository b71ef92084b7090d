"""Each docker run in namespaces of its own (stdlib only; pool.py prepends it, after ``run_world.py``, to the
in-container supervisor's source, so no ``from __future__`` import here).

A container lives for many runs, so nothing a run can change may be seen by the next one. The server forks
every run as PID 1 of a new PID namespace (``fork_run``), in a network namespace no run has used (a new one
after any run that used the network), that builds its own world as root (``build_world``): new mount, IPC
and UTS namespaces, a fresh ``/proc``, fresh size- and
inode-capped tmpfs for ``/tmp`` (holding the scratch dir) and ``/dev/shm``, a fresh ``/dev/mqueue``, the
container's cgroup files and the kernel's host-wide ``/proc`` files hidden, System V segments removed with
their last process (``kernel.shm_rmid_forced``), and the OOM killer's first choice (score 1000). Only then
does it drop to the run's uid with no capability in any set (``become_run_uid``).

When the run's PID 1 exits, the kernel kills every process of its namespace and the namespaces die: no
process, file, IPC object, socket, counter or high-water mark of the run outlives it, and the next run
starts with PIDs and inode numbers from the beginning. The container's own /tmp, /dev/shm, IPC and network
namespaces are never the run's.
"""

import os
import socket
import stat
from collections.abc import Callable, Iterable

if "enter_namespaces" not in globals():  # on the host; in a container run_world.py is prepended
    from rewardkit.sandbox.run_world import (
        CLONE_NEWPID,
        LIBC,
        MS_NODEV,
        MS_NOEXEC,
        MS_NOSUID,
        check,
        drop_privileges,
        enter_namespaces,
        fresh_network,
        limit_ipc,
        mask,
        mount,
        mount_tmpfs,
        new_network,
        no_new_privs,
        raise_oom_score,
    )

RUN_SCRATCH = "/tmp/run"
# What Docker hides of /proc in a container and an unprivileged run could read (the host's tasks and timers,
# keys), hidden again under each run's fresh /proc; and the container's cgroup (the memory high-water mark, OOM
# and task counters every run of the container moves). Docker's read-only binds of /proc/sys and the like are
# not made again: a run is never root and holds no capability, so those files are not its to write anyway.
MASKED_PATHS = ("/proc/kcore", "/proc/keys", "/proc/timer_list", "/proc/sched_debug", "/sys/firmware", "/sys/fs/cgroup")
_PID_NS: list[int] = []


def fork_run(child: Callable[[], None]) -> int:
    """Fork ``child()`` as PID 1 of a new PID namespace (it must never return), in a network namespace no run has
    used; its pid, as we see it."""
    if not _PID_NS:
        _PID_NS.append(os.open("/proc/self/ns/pid", os.O_RDONLY))
        new_network()  # ours from now on: none of the sockets we hold is in it
    fresh_network()
    check(LIBC.unshare(CLONE_NEWPID), "unshare(CLONE_NEWPID)")
    try:
        pid = os.fork()
        if pid == 0:
            try:
                child()
            finally:
                os._exit(127)
    finally:
        check(LIBC.setns(_PID_NS[0], CLONE_NEWPID), "setns")  # our next fork must start a namespace again
    return pid


def build_world(scratch_bytes: int, shm_bytes: int) -> None:
    """As the run's PID 1, still root: the namespaces and mounts described above; the scratch dir made."""
    enter_namespaces(network=False)  # our parent's, unused by any run (fresh_network)
    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    limit_ipc()
    mount_tmpfs("/tmp", scratch_bytes)
    mount_tmpfs("/dev/shm", shm_bytes, "rk-shm")
    if os.path.isdir("/dev/mqueue"):
        mount("mqueue", "/dev/mqueue", "mqueue", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    for path in MASKED_PATHS:
        mask(path)
    raise_oom_score()
    os.mkdir(RUN_SCRATCH)
    os.chmod(RUN_SCRATCH, 0o1777)


def become_run_uid(
    uid: int, gid: int, apply_limits: Callable[[], None], load_filter: Callable[[], None] | None
) -> None:
    """The run's uid for good: rlimits, no_new_privs, the seccomp deny list, no capability in any set (the bounding
    set was emptied once, when the supervisor started: ``drop_bounding_set``)."""
    apply_limits()
    no_new_privs()
    if load_filter is not None:
        load_filter()
    drop_privileges(uid, gid)
    os.umask(0o022)


def send_fd(sock: socket.socket, fd: int) -> None:
    socket.send_fds(sock, [b"fd"], [fd])


def receive_fd(sock: socket.socket) -> int | None:
    """An fd the run's PID 1 sent, or None (it ended first)."""
    try:
        message, fds, _, _ = socket.recv_fds(sock, 16, 1)
    except OSError:
        return None
    return fds[0] if message and fds else None


def read_collected(scratch_fd: int, names: Iterable[str], cap: int) -> dict[str, bytes]:
    """The files ``names`` of the run's scratch dir (held open after the run ended), regular files only, up to
    ``cap`` bytes each, every component opened without following a symlink: we are root, the run chose them."""
    files: dict[str, bytes] = {}
    for rel in names:
        fds = [os.dup(scratch_fd)]
        try:
            parts = rel.split("/")
            for part in parts[:-1]:
                fds.append(os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fds[-1]))
            fds.append(os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=fds[-1]))
            if stat.S_ISREG(os.fstat(fds[-1]).st_mode):
                files[rel] = _read_up_to(fds[-1], cap)
        except OSError:
            continue
        finally:
            for fd in fds:
                os.close(fd)
    return files


def _read_up_to(fd: int, cap: int) -> bytes:
    chunks: list[bytes]
    chunks, left = [], cap
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)
