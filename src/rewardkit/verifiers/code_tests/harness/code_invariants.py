"""The supervisor's own invariants (plain stdlib, runs inside the sandbox): what must hold for its verdict
to be worth anything, checked by the supervisor itself before the first candidate process starts, between
stdin/stdout cases, and again before it reports.

* **paths**: nothing the supervisor imports or executes can be changed by the run's uid (which is also the
  supervisor's): no ``sys.path`` entry, no imported module's file, not the interpreter nor the runners it
  starts (the test runner, the warm case runner), nor its working dir, may be written, replaced or created by
  this uid. A sticky world-writable dir (the scratch dir) holding a root-owned read-only file is fine: the uid
  can add files next to it but cannot change, rename or remove it;
* **caps**: no capability in any set (effective, permitted, inheritable, bounding, ambient), no_new_privs on,
  and the seccomp filter loaded (``Seccomp: 2``) where the sandbox has one;
* **pid1**: the supervisor is PID 1 of a PID namespace of its own, and no process but the supervisor (and,
  before the first start, the candidate process a zygote pre-forked) is in it between cases;
* **netns**: the network namespace is fresh: only ``lo``, no packet counted, no socket in any table, no count in
  its protocol statistics;
* **ipcns**: the IPC namespace is fresh: no System V segment, semaphore set or message queue;
* **oom**: where the run shares a memory cgroup with the sandbox's own long-lived processes (a warm zygote, a
  container's server), the run starts as the OOM killer's first choice and no System V segment outlives its
  processes (see ``check_oom_first``). A run may still lower its score (pinning it needs CAP_SYS_RESOURCE,
  which the sandbox holds only where the machine gives it): should the OOM killer then take a sandbox
  process, the host scores the run's ``memory_limit``, never a retryable infrastructure failure.

Which of them a run must meet is the sandbox's to say, through ``RK_SANDBOX_INVARIANTS`` in the run's
environment (a comma list; unset means all of them). The host builds that environment; a run cannot change
what its own supervisor reads at start.
"""

from __future__ import annotations

import os
import stat
import struct
import sys

ALL = ("paths", "caps", "pid1", "netns", "ipcns", "oom")
ENV = "RK_SANDBOX_INVARIANTS"
_CAP_FIELDS = ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")
_SYSV = ("shm", "sem", "msg")


class InvariantBroken(Exception):
    """A check failed: the supervisor refuses to judge."""


def expected(environ=None) -> tuple[str, ...]:  # type: ignore[no-untyped-def]
    """The invariants this run must meet, from the sandbox's ``RK_SANDBOX_INVARIANTS``."""
    value = (os.environ if environ is None else environ).get(ENV)
    if value is None:
        return ALL
    names = tuple(n.strip() for n in value.split(",") if n.strip() and n.strip() != "none")
    unknown = [n for n in names if n not in ALL]
    if unknown:
        raise InvariantBroken(f"{ENV} names unknown invariants {unknown}")
    return names


def writable_by_me(path: str) -> str | None:
    """Why this process's uid could add files to ``path``, write it, replace it or create it (also what it
    resolves to); None if it cannot."""
    why = replaceable(path)
    if why is None and _can_write(path):
        why = f"{path} is writable"
    return why


def replaceable(path: str) -> str | None:
    """Why this process's uid could swap ``path`` (or what it resolves to) for something else: a component
    that does not exist in a dir it may write, or a dir it may write holding a component it may rename (any,
    unless the dir is sticky; its own, if it is). None if it cannot."""
    absolute = os.path.abspath(path)
    why = _replaceable_chain(absolute)
    if why is None and _has_link(absolute):
        why = _replaceable_chain(os.path.realpath(absolute))
    return why


# Component -> why it could be swapped ("" when it cannot), per process: a run cannot make a dir it may not
# write writable, nor rename a mount point or another uid's entry out of a sticky dir, so an answer holds.
_CHAIN: dict[str, str] = {}


def _replaceable_chain(path: str) -> str | None:
    me = os.geteuid()
    current = ""
    for part in path.split("/"):
        if not part:
            continue
        parent, current = current or "/", f"{current}/{part}"
        why = _CHAIN.get(current)
        if why is None:
            why = ""
            if _can_write(parent):  # only a dir we may write lets us swap what is in it
                try:
                    info = os.lstat(current)
                except FileNotFoundError:
                    why = f"{current} does not exist and {parent} is writable"
                except OSError:
                    pass
                else:
                    if _swappable(parent, current, info, me):
                        why = f"{current} can be replaced ({parent} is writable)"
            _CHAIN[current] = why
        if why:
            return why
    return None


_LINKS: dict[str, bool] = {}


def _has_link(path: str) -> bool:
    """Whether a component of ``path`` is a symlink (then what it resolves to is checked too)."""
    current = ""
    for part in path.split("/"):
        if part:
            current = f"{current}/{part}"
            link = _LINKS.get(current)
            if link is None:
                try:
                    link = stat.S_ISLNK(os.lstat(current).st_mode)
                except OSError:
                    link = False
                _LINKS[current] = link
            if link:
                return True
    return False


def _swappable(directory: str, child: str, info: os.stat_result, me: int) -> bool:
    """Whether uid ``me`` may rename or remove ``child`` (lstat ``info``) from ``directory``: it may write the dir,
    ``child`` is no mount point (those cannot be renamed: EBUSY), and the dir is not sticky or one of the two is
    its own."""
    if not _can_write(directory) or child in mount_points():
        return False
    parent = os.stat(directory)
    return not parent.st_mode & stat.S_ISVTX or info.st_uid == me or parent.st_uid == me


_MOUNT_POINTS: dict[int, frozenset[str]] = {}


def mount_points() -> frozenset[str]:
    """The mount points of this process's mount namespace (read once per namespace: a run cannot mount)."""
    namespace = os.stat("/proc/self/ns/mnt").st_ino
    if namespace not in _MOUNT_POINTS:
        found = set()
        with open("/proc/self/mountinfo") as fh:
            for line in fh:
                fields = line.split(" ")
                if len(fields) > 4:
                    found.add(fields[4].replace("\\040", " ").replace("\\011", "\t").replace("\\134", "\\"))
        _MOUNT_POINTS.clear()
        _MOUNT_POINTS[namespace] = frozenset(found)
    return _MOUNT_POINTS[namespace]


def _can_write(path: str) -> bool:
    try:
        return os.access(path, os.W_OK)
    except OSError:
        return False


# Paths no uid but root can write or swap (files and dirs), found by a warm zygote as root before it serves any
# run (``precheck``): each run's supervisor, forked from it, checks only the others.
PRECHECKED: set[str] = set()
# How many modules were imported when the zygote made its checks: while ``sys.modules`` holds no more, a run's
# supervisor need not look at them (each look at a module object is a copy-on-write fault in a forked run).
PRECHECKED_MODULES = [0]


def precheck(extra: tuple[str, ...] = (), remounted: tuple[str, ...] = ()) -> None:
    """As root, before any run: note which of the paths a supervisor checks (every imported module's file, every
    ``sys.path`` entry and its ``__pycache__``, the interpreter, ``/``, and ``extra``) no uid but root can write or
    swap. Who may write root's files no run can change, so what holds now holds in every run, except under the
    dirs each run mounts anew (``remounted``): those are checked in every run."""
    paths = {sys.executable, "/", *extra}
    for entry in sys.path:
        paths.update((entry, f"{entry}/__pycache__"))
    modules = list(sys.modules.values())
    paths.update(str(m.__file__) for m in modules if isinstance(getattr(m, "__file__", None), str))
    unchecked = 0
    for path in paths:
        under_a_mount = any(path == d or path.startswith(d.rstrip("/") + "/") for d in remounted if d)
        if path.startswith("/") and not under_a_mount and _root_only(path):
            PRECHECKED.add(path)
        elif any(getattr(m, "__file__", None) == path for m in modules):
            unchecked += 1
    PRECHECKED_MODULES[0] = 0 if unchecked else len(modules)  # a run checks every module if any file was left
    status_fields()  # loads libc once, for every run


def _root_only(path: str) -> bool:
    """No uid but root can write ``path`` or swap any component of it (no symlink on the way)."""
    try:
        parent, parent_info = "/", os.lstat("/")
        current = ""
        for part in path.split("/")[1:]:
            current = f"{current}/{part}"
            info = os.lstat(current)
            if stat.S_ISLNK(info.st_mode):
                return False
            swappable = _others_may_write(parent, parent_info) and not (
                parent_info.st_mode & stat.S_ISVTX and parent_info.st_uid == 0 and info.st_uid == 0
            )
            if swappable:
                return False
            parent, parent_info = current, info
        return not _others_may_write(path, parent_info)
    except OSError:
        return False


def _others_may_write(path: str, info: os.stat_result) -> bool:
    """Whether a uid other than root may write it: not root's, or writable by others (or by a group not root's),
    unless on a read-only mount."""
    writable = info.st_uid != 0 or info.st_mode & stat.S_IWOTH or (info.st_mode & stat.S_IWGRP and info.st_gid != 0)
    if not writable:
        return False
    try:
        return not os.statvfs(path).f_flag & os.ST_RDONLY
    except OSError:
        return True


class Checker:
    """The checks of one run; ``seen`` remembers what passed, so each later check covers only what is new."""

    def __init__(self, executables: tuple[str, ...], environ=None) -> None:  # type: ignore[no-untyped-def]
        self.early_failure: str | None = None
        try:
            self.names = expected(environ)
        except InvariantBroken as exc:
            self.names, self.early_failure = ALL, str(exc)
        self.executables = executables
        self.dirs: dict[str, str | None] = {}  # sys.path entries: writable_by_me
        self.parents: dict[str, tuple[str | None, bool]] = {}  # dirs of the files we use: replaceable, writable
        self.modules: set[str] = set()

    def at_start(self, allowed_pids: tuple[int, ...] = ()) -> list[str]:
        """Every check, before any candidate process ran; the names of the checks made."""
        if self.early_failure is not None:
            raise InvariantBroken(self.early_failure)
        self.paths()
        if "caps" in self.names:
            check_capabilities(seccomp_expected())
        if "pid1" in self.names:
            check_alone(allowed_pids)
        if "netns" in self.names:
            check_fresh_network()
        if "ipcns" in self.names:
            check_fresh_ipc()
        if "oom" in self.names:
            check_oom_first()
        return list(self.names)

    def between_cases(self, allowed_pids: tuple[int, ...] = ()) -> None:
        """No process of a case (or of a crashed runner) is left; ``allowed_pids``: the warm case runner."""
        if "pid1" in self.names:
            check_alone(allowed_pids)

    def before_report(self) -> None:
        """What a candidate could have changed since the start: the paths (modules imported since), and the
        processes left."""
        self.paths()
        if "pid1" in self.names:
            check_alone(())

    def paths(self) -> None:
        if "paths" not in self.names:
            return
        if "" in sys.path:
            raise InvariantBroken("the working dir is on sys.path")
        for entry in sys.path:
            self._dir(entry, "sys.path entry")
            cache = f"{entry}/__pycache__"  # where a later import may read a compiled module from
            if cache not in PRECHECKED and os.path.isdir(cache):
                self._dir(cache, "sys.path entry's __pycache__")
        self._dir(os.getcwd(), "working dir")
        for path in self.executables:
            if path not in PRECHECKED:
                self._file(path, "executable")
        if len(sys.modules) == PRECHECKED_MODULES[0]:
            return  # the zygote's modules, all checked: nothing was imported since (sys.path is checked above)
        for name, module in list(sys.modules.items()):
            if name in self.modules:
                continue
            where = getattr(module, "__file__", None)
            if isinstance(where, str) and where not in PRECHECKED:
                self._file(where, f"module {name}")
            self.modules.add(name)

    def _dir(self, path: str, what: str) -> None:
        if path in PRECHECKED:
            return
        if path not in self.dirs:
            self.dirs[path] = writable_by_me(path)
        if self.dirs[path] is not None:
            raise InvariantBroken(f"{what}: {self.dirs[path]}")

    def _file(self, path: str, what: str, must_exist: bool = True) -> None:
        """A file we read or execute: neither the file nor any dir above it may be changed by us."""
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            if must_exist:  # a module whose file is gone could be made anew where it was
                raise InvariantBroken(f"{what}: its file {path} is gone") from None
            return
        if path.startswith("/") and "/." not in path and "//" not in path:
            directory = path.rpartition("/")[0] or "/"
        else:
            directory = os.path.dirname(os.path.abspath(path))
        if directory not in self.parents:
            self.parents[directory] = (replaceable(directory), _can_write(directory))
        why, directory_writable = self.parents[directory]
        if why is None and directory_writable and _swappable(directory, path, info, os.geteuid()):
            why = f"{path} can be replaced ({directory} is writable)"
        if why is None and stat.S_ISLNK(info.st_mode):
            why = writable_by_me(os.path.realpath(path))
        elif why is None and _mode_lets_me_write(info) and _can_write(path):  # (a read-only mount may still stop it)
            why = f"{path} is writable"
        if why is not None:
            raise InvariantBroken(f"{what}: {why}")


def _mode_lets_me_write(info: os.stat_result) -> bool:
    mode = info.st_mode
    if mode & stat.S_IWOTH or (mode & stat.S_IWUSR and info.st_uid == os.geteuid()):
        return True
    return bool(mode & stat.S_IWGRP and (info.st_gid == os.getegid() or info.st_gid in os.getgroups()))


def seccomp_expected() -> bool:
    return os.uname().machine in ("x86_64", "aarch64")


_LIBC: list = []  # [libc, capget header, capget data], made once per process tree: a zygote's runs inherit them


def status_fields() -> dict[str, str]:
    """This process's capability sets, no_new_privs and seccomp mode, as /proc/self/status names them, from the
    syscalls themselves (the status file costs a quarter of a millisecond to make)."""
    if not _LIBC:
        import ctypes

        header = ctypes.create_string_buffer(struct.pack("Ii", 0x20080522, 0), 8)  # _LINUX_CAPABILITY_VERSION_3
        _LIBC.extend((ctypes.CDLL(None, use_errno=True), header, ctypes.create_string_buffer(24)))
    libc, header, data = _LIBC
    if libc.capget(header, data) != 0:
        raise OSError("capget failed")
    eff0, prm0, inh0, eff1, prm1, inh1 = struct.unpack("6I", data.raw)
    sets = {"CapEff": eff0 | eff1 << 32, "CapPrm": prm0 | prm1 << 32, "CapInh": inh0 | inh1 << 32}
    bounding = ambient = 0
    for cap in range(64):
        held = libc.prctl(23, cap, 0, 0, 0)  # PR_CAPBSET_READ: -1 past the kernel's last capability
        if held < 0:
            break
        bounding |= held << cap
        # a capability is ambient only if it is permitted and inheritable too (the kernel keeps it so)
        if sets["CapPrm"] & sets["CapInh"] >> cap & 1 and libc.prctl(47, 1, cap, 0, 0) == 1:  # PR_CAP_AMBIENT_IS_SET
            ambient |= 1 << cap
    fields = {name: f"{value:016x}" for name, value in {**sets, "CapBnd": bounding, "CapAmb": ambient}.items()}
    fields["NoNewPrivs"] = str(libc.prctl(39, 0, 0, 0, 0))  # PR_GET_NO_NEW_PRIVS
    fields["Seccomp"] = str(libc.prctl(21, 0, 0, 0, 0))  # PR_GET_SECCOMP: 2 under a filter
    return fields


def check_capabilities(want_seccomp: bool, fields: dict[str, str] | None = None) -> None:
    fields = status_fields() if fields is None else fields
    held = [name for name in _CAP_FIELDS if int(fields.get(name, "1"), 16) != 0]
    if held:
        raise InvariantBroken(f"capabilities held: {', '.join(f'{n}={fields.get(n)}' for n in held)}")
    if fields.get("NoNewPrivs") != "1":
        raise InvariantBroken("no_new_privs is off")
    if want_seccomp and fields.get("Seccomp") != "2":
        raise InvariantBroken(f"no seccomp filter (Seccomp: {fields.get('Seccomp')})")


def check_alone(allowed: tuple[int, ...]) -> None:
    """We are PID 1 and no other live process is in our PID namespace (``allowed`` excepted)."""
    if os.getpid() != 1:
        raise InvariantBroken(f"the supervisor is pid {os.getpid()}, not PID 1 of a namespace of its own")
    others = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != 1 and int(entry) not in allowed and not gone(entry):
            others.append(int(entry))
    if others:
        raise InvariantBroken(f"processes of the run are still alive: {sorted(others)[:10]}")


def gone(pid: str) -> bool:
    """Whether the process ``pid`` has ended (a zombie, or reaped already)."""
    try:
        return _read(f"/proc/{pid}/stat").rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except (OSError, IndexError):
        return True  # gone


def _read(path: str) -> str:
    """A small file's text, read with one syscall or two (no buffered file object: a run pays for every page the
    supervisor touches)."""
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


def check_fresh_network(root: str = "/proc/net") -> None:
    """A namespace no run used, while no other process is alive in it (``pid1``): only ``lo``, which has counted
    nothing (TIME_WAIT and orphaned TCP sockets, the state that outlives a socket, come only with packets), no
    IPv6 flow label (which needs none), and no count in its protocol statistics (``snmp``, ``netstat``,
    ``snmp6``: a send that finds no route moves them without a packet). Written apart from the sandbox's own
    test of the same thing (``run_world.network_used``): the check of a promise shares no code with what keeps it."""
    rows = [line.split(":", 1) for line in _read(os.path.join(root, "dev")).splitlines()[2:]]
    names = sorted(name.strip() for name, _ in rows)
    if names != ["lo"]:
        raise InvariantBroken(f"network interfaces {names}, not a fresh namespace's lo")
    counted = [int(value) for value in rows[0][1].split()]
    if any(counted):
        raise InvariantBroken(f"lo has carried packets ({counted[1]} in, {counted[9]} out): not a fresh namespace")
    try:
        labels = len(_read(os.path.join(root, "ip6_flowlabel")).splitlines()) - 1
    except FileNotFoundError:
        labels = 0
    if labels > 0:
        raise InvariantBroken(f"{labels} IPv6 flow label(s) in the network namespace: not a fresh one")
    for name in ("snmp", "netstat", "snmp6"):  # a datagram sent nowhere counts (Ip:OutNoRoutes) without a packet
        try:
            text = _read(os.path.join(root, name))
        except FileNotFoundError:
            continue
        moved = _counted(text)
        if moved:
            raise InvariantBroken(f"the network namespace's {name} has counted {', '.join(moved[:3])}: not a fresh one")


# What a fresh namespace's /proc/net/snmp shows that is a setting, not a count.
_NET_SETTINGS = frozenset(
    ("Ip:Forwarding", "Ip:DefaultTTL", "Tcp:RtoAlgorithm", "Tcp:RtoMin", "Tcp:RtoMax", "Tcp:MaxConn")
)


def _counted(text: str) -> list[str]:
    """``name=value`` of every count in a /proc/net/snmp, netstat or snmp6 text that is not zero."""
    rows = text.splitlines()
    if not rows:
        return []
    if ":" in rows[0].split(None, 1)[0]:  # snmp, netstat: "Proto: names" then "Proto: values"
        pairs: list[tuple[str, str]] = []
        for head, body in zip(rows[0::2], rows[1::2], strict=False):
            proto, *names = head.split()
            pairs += [(proto + n, v) for n, v in zip(names, body.split()[1:], strict=False)]
    else:  # snmp6: "name value" per line
        pairs = [(row.split()[0], row.split()[-1]) for row in rows if row.strip()]
    return [f"{n}={v}" for n, v in pairs if v != "0" and n not in _NET_SETTINGS]


def check_fresh_ipc(root: str = "/proc/sysvipc") -> None:
    for kind in _SYSV:
        try:
            count = len(_read(os.path.join(root, kind)).splitlines()) - 1
        except FileNotFoundError:
            continue
        if count > 0:
            raise InvariantBroken(f"{count} System V {kind} object(s) in the IPC namespace: not a fresh one")


def check_oom_first(proc: str = "/proc") -> None:
    """The run is the OOM killer's first choice in the memory cgroup it shares with the sandbox's own
    processes (OOM score adjustment 1000), and no System V segment outlives the processes that attach it
    (``kernel.shm_rmid_forced``), so its memory is in its own processes or in its capped tmpfs."""
    value = _read(os.path.join(proc, "self/oom_score_adj")).strip()
    if value != "1000":
        raise InvariantBroken(f"the run's OOM score adjustment is {value}, not 1000")
    forced = _read(os.path.join(proc, "sys/kernel/shm_rmid_forced")).strip()
    if forced != "1":
        raise InvariantBroken(f"kernel.shm_rmid_forced is {forced} in the run's IPC namespace, not 1")
