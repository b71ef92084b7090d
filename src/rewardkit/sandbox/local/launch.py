"""Build the command line that puts one run of the ``local`` sandbox inside its isolation.

Three isolation levels, strongest first:

``bwrap``    bubblewrap: new PID, network, IPC and UTS namespaces; a root filesystem that holds only
             read-only binds of the system dirs (``/usr``, ``/lib*``, the Python prefix) and a size-capped
             tmpfs scratch dir; ``--as-pid-1`` so that the whole namespace dies with the command.
``unshare``  util-linux ``unshare``: new PID, network, IPC, UTS and mount namespaces, ``/proc``
             remounted; the system is seen as it is (read-only only through file permissions, since
             the run has a uid of its own that owns nothing); the scratch dir is a host temp dir.
``rlimits``  no namespaces at all: rlimits, a fresh session, a clean environment and a temp dir.
             Only on explicit opt-in, with a loud warning.

Inside ``bwrap`` and ``unshare`` the command runs under ``prlimit`` (CPU, address space, processes,
file size, open files, no core dumps) and, when we are root, ``setpriv`` to a uid of its own with
no capabilities and ``no_new_privs``, so that RLIMIT_NPROC counts only this run's processes.

All three load the seccomp deny list of :mod:`rewardkit.sandbox.seccomp_bpf` before the command:
bubblewrap through ``--seccomp FD``, ``unshare`` through a small Python step after its mounts
(``prctl(PR_SET_SECCOMP)``, then exec), ``rlimits`` in the forked child before exec.
"""

from __future__ import annotations

import functools
import glob
import os
import resource
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rewardkit._errors import SandboxError
from rewardkit.sandbox import run_checks, run_world, seccomp_bpf
from rewardkit.sandbox.base import Limits

ISOLATIONS = ("auto", "bwrap", "unshare", "rlimits")
SCRATCH = "/sandbox"
_SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_ETC_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/localtime", "/etc/alternatives")
# Toolchain config the system dirs link into (Debian's JDK: /usr/lib/jvm/*/conf/* -> /etc/java-17-openjdk/*)
_ETC_TOOLCHAIN_GLOBS = ("/etc/java-*",)
_PRIVATE_DIRS = ("/dev/shm", "/var/tmp", "/run/lock")  # world-writable on a usual host (unshare mode)
# argv: [hex of the packed filter or "-", command...]: lo up in the run's new network namespace (as bubblewrap
# does), then the filter; the first stderr line names the step if it fails
SETUP_STEP = (
    Path(seccomp_bpf.__file__).read_text()
    + Path(run_world.__file__).read_text()
    + """
import sys
try:
    loopback_up()
    if sys.argv[1] != "-":
        filter_installer(bytes.fromhex(sys.argv[1]))()
except Exception as exc:
    sys.stderr.write("rk-seccomp: " + str(exc) + "\\n")
    sys.exit(126)
os.execvp(sys.argv[2], sys.argv[2:])
"""
)


@dataclass(frozen=True)
class Launch:
    """How one run starts: the argv, the fds it needs passed, and where its scratch dir lies."""

    argv: list[str]
    pass_fds: tuple[int, ...] = ()
    host_scratch: str | None = None  # a host dir (unshare, rlimits, or bwrap with ``collect``)
    cwd: str | None = None
    scratch: str = SCRATCH  # the scratch dir as the program sees it
    rlimits: Limits | None = None  # set by the caller in the child (rlimits isolation only)
    seccomp: bytes | None = None  # a filter the caller loads in the child (rlimits isolation only)


# The namespaces of the unshare level, for a fork-exec run and for a zygote alike: own PID namespace (its
# init killed with the parent), /proc, network, IPC, UTS and mounts.
UNSHARE_NAMESPACES = (
    "unshare",
    "--pid",
    "--fork",
    "--kill-child",
    "--mount-proc",
    "--net",
    "--ipc",
    "--uts",
    "--mount",
)


def detect_isolation(requested: str) -> str:
    """The isolation to use for ``requested``; raises SandboxError naming what is missing."""
    if requested not in ISOLATIONS:
        raise SandboxError(f"local sandbox: isolation must be one of {', '.join(ISOLATIONS)}, got {requested!r}")
    if requested == "rlimits":
        return "rlimits"
    missing_common = [tool for tool in ("prlimit",) if shutil.which(tool) is None]
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        missing_common.append("setpriv")
    has_bwrap = shutil.which("bwrap") is not None
    has_unshare = shutil.which("unshare") is not None and os.geteuid() == 0
    if requested == "bwrap" and not has_bwrap:
        raise SandboxError("local sandbox: isolation='bwrap' but bubblewrap is not installed (apt install bubblewrap)")
    if requested == "unshare" and not has_unshare:
        raise SandboxError("local sandbox: isolation='unshare' needs util-linux unshare and root")
    if requested == "auto" and not (has_bwrap or has_unshare):
        raise SandboxError(
            "local sandbox: no isolation tool found: install bubblewrap (apt install bubblewrap), or run as "
            "root with util-linux unshare, or opt in to rlimits-only runs with isolation='rlimits' (no "
            "namespaces: the program can see the network, your files and your processes)"
        )
    if missing_common:
        raise SandboxError(f"local sandbox: missing {', '.join(missing_common)} (util-linux), needed to apply limits")
    if requested in ("bwrap", "unshare"):
        return requested
    return "bwrap" if has_bwrap else "unshare"


@functools.cache
def python_prefixes() -> tuple[str, ...]:
    """Install prefixes of the running Python that lie outside the system dirs (e.g. pyenv, conda)."""
    prefixes = []
    for prefix in {os.path.realpath(sys.base_prefix), os.path.realpath(sys.base_exec_prefix)}:
        if not any(prefix == d or prefix.startswith(d + "/") for d in _SYSTEM_DIRS):
            prefixes.append(prefix)
    return tuple(sorted(prefixes))


def sandbox_path() -> str:
    dirs = [os.path.join(p, "bin") for p in python_prefixes()]
    return ":".join([*dirs, "/usr/local/bin", "/usr/bin", "/bin"])


def clean_env(scratch: str = SCRATCH, invariants: str | None = None) -> dict[str, str]:
    """The whole environment a run sees: nothing inherited from the caller (no tokens, no keys)."""
    return run_checks.clean_env(sandbox_path(), scratch, home=scratch, invariants=invariants)


def limit_argv(limits: Limits) -> list[str]:
    flags = [
        f"--{name}={soft}" if soft == hard else f"--{name}={soft}:{hard}"
        for name, (soft, hard) in run_checks.rlimits(limits).items()
    ]
    return ["prlimit", *flags, "--"]


def drop_privileges_argv(uid: int | None) -> list[str]:
    if uid is None:
        return []
    return [
        "setpriv",
        f"--reuid={uid}",
        f"--regid={uid}",
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--no-new-privs",
        "--",
    ]


def system_binds() -> list[str]:
    args: list[str] = []
    made: set[str] = set()

    def parents(path: str) -> None:  # bwrap would copy the host's modes (/root is 0700): make them 0755
        parts = Path(path).parent.parts[1:]
        for i in range(len(parts)):
            sub = "/" + "/".join(parts[: i + 1])
            if sub not in made:
                args.extend(["--perms", "0755", "--dir", sub])
                made.add(sub)

    for d in _SYSTEM_DIRS:
        if os.path.islink(d):
            args += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            args += ["--ro-bind", d, d]
    toolchain = sorted(p for pattern in _ETC_TOOLCHAIN_GLOBS for p in glob.glob(pattern) if os.path.isdir(p))
    for f in [*_ETC_FILES, *toolchain]:
        if os.path.exists(f):
            parents(f)
            args += ["--ro-bind", f, f]
    for prefix in python_prefixes():
        parents(prefix)
        args += ["--ro-bind", prefix, prefix]
    return args


def bwrap_launch(
    command: Sequence[str],
    files: dict[str, int],
    limits: Limits,
    uid: int | None,
    host_scratch: str | None,
    seccomp_fd: int | None = None,
) -> Launch:
    """``files`` maps a relative path in the scratch dir to a readable fd holding its content;
    ``seccomp_fd``, a readable fd holding a packed seccomp filter."""
    argv = ["bwrap", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    if uid is None:  # not root: bubblewrap needs a user namespace, and runs as our own uid inside
        argv.append("--unshare-user")
    argv += ["--die-with-parent", "--new-session", "--as-pid-1"]
    argv += system_binds()
    argv += ["--proc", "/proc", "--dev", "/dev"]
    # POSIX semaphores and shared memory (multiprocessing) need a writable /dev/shm: a private one per run
    argv += ["--perms", "1777", "--size", str(int(limits.max_scratch_bytes)), "--tmpfs", "/dev/shm"]
    if host_scratch is None:
        argv += ["--perms", "1777", "--size", str(int(limits.max_scratch_bytes)), "--tmpfs", SCRATCH]
        made: set[str] = set()
        for rel, fd in sorted(files.items()):
            parent = os.path.dirname(rel)
            parts = Path(parent).parts if parent else ()
            for i in range(len(parts)):
                sub = "/".join(parts[: i + 1])
                if sub not in made:
                    argv += ["--perms", "1777", "--dir", f"{SCRATCH}/{sub}"]
                    made.add(sub)
            # a read-only bind each: the run can neither write nor replace it, even as an ordinary user, where
            # the run's uid owns every file bubblewrap makes
            argv += ["--perms", "0444", "--ro-bind-data", str(fd), f"{SCRATCH}/{rel}"]
    else:
        argv += ["--bind", host_scratch, SCRATCH]
    # the new root itself read-only: as an ordinary user it is ours in the user namespace, and the supervisor
    # must not sit in (or under) a dir the run can write
    argv += ["--symlink", SCRATCH, "/tmp", "--remount-ro", "/", "--chdir", SCRATCH]
    fds = tuple(files.values())
    if seccomp_fd is not None:
        argv += ["--seccomp", str(seccomp_fd)]
        fds += (seccomp_fd,)
    argv += ["--", *limit_argv(limits), *drop_privileges_argv(uid), *command]
    return Launch(argv, fds, host_scratch)


def setup_argv(seccomp: bytes | None) -> list[str]:
    """A prefix that brings ``lo`` up and loads ``seccomp`` (if any) into the process, then execs the rest."""
    return [os.path.realpath(sys.executable), "-I", "-S", "-c", SETUP_STEP, seccomp.hex() if seccomp else "-"]


def unshare_launch(
    command: Sequence[str], limits: Limits, uid: int | None, host_scratch: str, seccomp: bytes | None = None
) -> Launch:
    """New namespaces; a size-capped tmpfs on /tmp (in our mount namespace only) gets the files and is the cwd."""
    # the host's other world-writable dirs get private tmpfs too (after the copy: the files are staged in
    # /var/tmp), so that nothing a run writes there reaches a later run
    private = " ".join(_PRIVATE_DIRS)
    setup = (
        'mount --make-rprivate / && mount -t tmpfs -o "size=$1,mode=1777" rk-scratch /tmp && '
        'cp -R "$2"/. /tmp/ && chmod -R a-w /tmp/* 2>/dev/null; chmod 1777 /tmp && '
        f'for d in {private}; do if [ -d "$d" ]; then mount -t tmpfs -o "size=$1,mode=1777" rk-private "$d" '
        "|| exit 125; fi; done && "
        # the cgroups above the run's own (the caller's, shared by every run): their high-water marks and counters
        "if [ -d /sys/fs/cgroup ]; then mount -t tmpfs -o ro,mode=555 rk-masked /sys/fs/cgroup || exit 125; fi && "
        'cd /tmp && shift 2 && exec "$@"'
    )
    argv = [
        *UNSHARE_NAMESPACES,
        "--",
        "sh",
        "-c",
        setup,
        "rk-setup",
        str(int(limits.max_scratch_bytes)),
        host_scratch,
    ]
    argv += setup_argv(seccomp) + limit_argv(limits) + drop_privileges_argv(uid) + list(command)
    return Launch(argv, (), host_scratch, scratch="/tmp")


def rlimits_launch(command: Sequence[str], limits: Limits, host_scratch: str, seccomp: bytes | None = None) -> Launch:
    """No namespaces: the caller sets the rlimits and loads ``seccomp`` in the child, and a new session."""
    return Launch(
        list(command), (), host_scratch, cwd=host_scratch, scratch=host_scratch, rlimits=limits, seccomp=seccomp
    )


def rlimits_preexec(limits: Limits, seccomp: bytes | None) -> Callable[[], None]:
    """What the rlimits level runs in the forked child: set the rlimits, load the seccomp filter."""
    pairs = [
        (getattr(resource, f"RLIMIT_{name.upper()}"), soft_hard)
        for name, soft_hard in run_checks.rlimits(limits).items()
    ]
    load_filter = seccomp_bpf.filter_installer(seccomp) if seccomp is not None else None  # before the fork

    def apply() -> None:
        for what, value in pairs:
            resource.setrlimit(what, value)
        if load_filter is not None:
            load_filter()

    return apply


def file_memfd(name: str, data: bytes) -> int:
    """An anonymous in-memory file holding ``data`` (a run's file, handed over as an fd), read from the start."""
    fd = os.memfd_create(f"rk-{os.path.basename(name)}", 0)  # no CLOEXEC: bwrap inherits it via pass_fds
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
