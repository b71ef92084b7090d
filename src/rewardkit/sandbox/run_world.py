"""The world of one run, built by a root process for the run's first process (stdlib only; shipped into the
local zygote's dir and prepended to the docker supervisor's source, never imported by a run).

Both warm zygotes and the docker supervisor fork each run into namespaces of its own and hand it to an
unprivileged uid with these steps:

* ``enter_namespaces``: new mount, IPC and UTS namespaces (the caller made the PID namespace), mounts private;
  the network namespace is the caller's, which ``fresh_network`` keeps only while no run has used it (a new one,
  ``lo`` up, costs milliseconds of kernel time: a run that never touches the network need not pay them);
* ``mount``/``mount_tmpfs``/``mask``: a fresh ``/proc``, size- and inode-capped tmpfs for every dir the run may
  write, empty read-only mounts over what must not be seen;
* ``limit_ipc``: System V segments die with the processes that attach them (``kernel.shm_rmid_forced``);
* ``drop_privileges``: the bounding and ambient sets emptied while that is still allowed, then the run's uid
  and no capability in any set.

Everything raises ``OSError`` naming the step that failed.
"""

import ctypes
import fcntl
import os
import socket
import struct
from collections.abc import Sequence

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWPID, CLONE_NEWNET = (
    0x00020000,
    0x04000000,
    0x08000000,
    0x20000000,
    0x40000000,
)
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = (
    1,
    2,
    4,
    8,
    0x20,
    0x1000,
    0x4000,
    0x40000,
)
PR_CAPBSET_DROP, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, PR_SET_NO_NEW_PRIVS = 24, 47, 4, 38
_SIOCGIFFLAGS, _SIOCSIFFLAGS, _IFF_UP = 0x8913, 0x8914, 0x1
_IFREQ = struct.Struct("16sh22x")
_CAP_HEADER = struct.pack("Ii", 0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
LIBC = ctypes.CDLL(None, use_errno=True)


def check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    check(
        LIBC.mount(
            source and source.encode(),
            target.encode(),
            fstype and fstype.encode(),
            ctypes.c_ulong(flags),
            data and data.encode(),
        ),
        f"mount {target}",
    )


def tmpfs_options(size_bytes: int, mode: str = "1777") -> str:
    """Size-capped, and inode-capped too (one per KiB): what a run leaves costs its teardown a bounded time."""
    size_bytes = int(size_bytes)
    return f"size={size_bytes},nr_inodes={max(4096, size_bytes // 1024)},mode={mode}"


def mount_tmpfs(target: str, size_bytes: int, name: str = "rk-scratch", mode: str = "1777") -> None:
    mount(name, target, "tmpfs", MS_NOSUID | MS_NODEV, tmpfs_options(size_bytes, mode))


def mask(path: str) -> None:
    """Hide ``path`` (a dir or a file) under something empty and read-only; a path that is not there is skipped."""
    if os.path.isdir(path) and not os.path.islink(path):
        mount("rk-masked", path, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=555")
    elif os.path.exists(path) and not os.path.islink(path):
        mount("/dev/null", path, None, MS_BIND)


def enter_namespaces(network: bool = True) -> None:
    """New mount, IPC and UTS namespaces for this process, every mount private to us; with ``network``, a new
    network namespace with ``lo`` up too (else the caller's, which ``fresh_network`` must have shown unused)."""
    check(LIBC.unshare(CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS | (CLONE_NEWNET if network else 0)), "unshare")
    if network:
        loopback_up()
    mount(None, "/", None, MS_REC | MS_PRIVATE)


def _read(path: str) -> str:
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        chunks: list[bytes] = []
        while True:
            chunk = os.read(fd, 65536)
            if not chunk:
                return b"".join(chunks).decode("utf-8", "replace")
            chunks.append(chunk)
    finally:
        os.close(fd)


# The fields of /proc/net/snmp that are settings, not counters: what a new namespace shows for them is not zero.
MIB_SETTINGS = ("Ip:Forwarding", "Ip:DefaultTTL", "Tcp:RtoAlgorithm", "Tcp:RtoMin", "Tcp:RtoMax", "Tcp:MaxConn")


def network_used(root: str = "/proc/net") -> str | None:
    """What shows that a process used this network namespace, or None when nothing does (as in a new one), once
    every process that used it is gone: a packet lo counted (TIME_WAIT and orphaned TCP sockets, the state that
    outlives a socket, come only with packets), an IPv6 flow label (which needs none), or a count of the
    namespace's own protocol statistics (a datagram sent nowhere moves ``Ip:OutNoRoutes`` without a packet:
    the next run could read it). An unprivileged process changes nothing else in it."""
    for line in _read(os.path.join(root, "dev")).splitlines()[2:]:
        name, _, counters = line.partition(":")
        if name.strip() != "lo" or any(int(value) for value in counters.split()):
            return f"{name.strip()} has counted traffic"
    try:
        if len(_read(os.path.join(root, "ip6_flowlabel")).splitlines()) > 1:
            return "an IPv6 flow label"
    except FileNotFoundError:
        pass
    for name in ("snmp", "netstat", "snmp6"):
        try:
            counted = mib_counts(_read(os.path.join(root, name)))
        except FileNotFoundError:
            continue
        if counted:
            return f"{name} counted {counted[0]}"
    return None


def mib_counts(text: str) -> list[str]:
    """The counters of a /proc/net/snmp, netstat or snmp6 text that are not zero (``Ip:OutNoRoutes=3``)."""
    found: list[str] = []
    lines = text.splitlines()
    if lines and ":" not in lines[0]:  # snmp6: one "name value" per line
        pairs: list[Sequence[str]] = [line.split() for line in lines]
    else:  # snmp, netstat: a line of names, then a line of values, per protocol
        pairs = []
        for names, values in zip(lines[::2], lines[1::2], strict=False):
            protocol, _, names = names.partition(" ")
            pairs.extend(zip((protocol + n for n in names.split()), values.split()[1:], strict=False))
    for pair in pairs:
        if len(pair) == 2 and pair[1] != "0" and pair[0] not in MIB_SETTINGS:
            found.append(f"{pair[0]}={pair[1]}")
    return found


def new_network() -> None:
    """This process (and what it forks from now on) in a new network namespace, ``lo`` up. The sockets it holds
    stay in the old one."""
    check(LIBC.unshare(CLONE_NEWNET), "unshare(CLONE_NEWNET)")
    loopback_up()


def fresh_network() -> bool:
    """Keep this process's network namespace for the next run only if nothing used it, else take a new one
    (``new_network``, which the caller made at its start, so that none of its own sockets is in it). Whether it
    was renewed."""
    if network_used() is None:
        return False
    new_network()
    return True


def loopback_up() -> None:
    """A fresh network namespace has ``lo`` down: bring it up, as bubblewrap does for a fork-exec run."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        _, flags = _IFREQ.unpack(fcntl.ioctl(sock.fileno(), _SIOCGIFFLAGS, _IFREQ.pack(b"lo", 0)))
        fcntl.ioctl(sock.fileno(), _SIOCSIFFLAGS, _IFREQ.pack(b"lo", flags | _IFF_UP))


def limit_ipc(proc: str = "/proc") -> None:
    """In this process's (new) IPC namespace, a System V segment is removed once no process attaches it, so
    that memory a run holds is in its processes (counted by RLIMIT_AS and the OOM killer) or in its tmpfs."""
    fd = os.open(os.path.join(proc, "sys/kernel/shm_rmid_forced"), os.O_WRONLY)
    try:
        os.write(fd, b"1")
    finally:
        os.close(fd)


def raise_oom_score() -> None:
    """The run is the OOM killer's first choice in a cgroup it shares with the sandbox's own processes (where we
    hold CAP_SYS_RESOURCE the write also pins it: no process of the run can lower it again)."""
    fd = os.open("/proc/self/oom_score_adj", os.O_WRONLY)
    try:
        os.write(fd, b"1000")
    finally:
        os.close(fd)


def drop_bounding_set() -> None:
    """Empty the capability bounding set and the ambient set of this process (needs CAP_SETPCAP)."""
    for cap in range(64):
        if LIBC.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            if ctypes.get_errno() == 22:  # EINVAL: past the kernel's last capability
                break
            check(-1, f"PR_CAPBSET_DROP {cap}")
    check(LIBC.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0), "PR_CAP_AMBIENT_CLEAR_ALL")


def clear_capabilities() -> None:
    """Every capability set of this process empty (the inheritable one survives a uid change)."""
    data = ctypes.create_string_buffer(24)  # two (effective, permitted, inheritable) u32 triples, all zero
    check(LIBC.capset(ctypes.c_char_p(_CAP_HEADER), data), "capset")


def no_new_privs() -> None:
    check(LIBC.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")


def drop_privileges(uid: int | None, gid: int | None = None) -> None:
    """For good: the run's uid (``None``: stay as we are), no groups, no capability in any set. The bounding
    set must already be empty (``drop_bounding_set``, before any uid change)."""
    if uid is not None:
        gid = uid if gid is None else gid
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)  # from root to another uid: permitted and effective are gone
    clear_capabilities()
