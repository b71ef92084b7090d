"""The seccomp filter both sandbox backends put on every program: one deny list, built as classic BPF.

Stdlib only, and no ``from __future__`` import: docker/pool.py prepends this file to the in-container
supervisor's source (the files of docker/container/).

What it denies (EPERM unless said), for x86_64 and aarch64, is what Docker's default profile denies a
process without capabilities, plus what that profile allows but a judged program has no use for:

* kernel keyrings (``add_key``, ``keyctl``, ``request_key``): not namespaced, keys outlive the run and
  a later run with the same uid could read them;
* new namespaces and mounts (``unshare``, ``setns``, ``clone`` with a ``CLONE_NEW*`` flag, ``mount``,
  the new mount API, ``pivot_root``, ``chroot``); ``clone3`` fails with ENOSYS, whose flags a filter
  cannot read (glibc then falls back to ``clone``, as under Docker);
* other processes' memory (``ptrace``, ``process_vm_readv``/``writev``, ``kcmp``, ``pidfd_getfd``,
  ``process_madvise``);
* large kernel surfaces (``bpf``, ``perf_event_open``, ``userfaultfd``, ``io_uring_*``, ``fanotify_init``,
  NUMA policy calls, ``open_by_handle_at``) and host administration (modules, kexec, reboot, swap, clock,
  host and domain names, quotas, accounting, ``syslog``, ``vhangup``, x86 port I/O);
* ``socket(AF_VSOCK)`` (vsock is not network-namespaced: it reaches a VM's host), and ``personality``
  with any value but Docker's allowed ones;
* choosing who gets a file's async-I/O signal: ``fcntl`` with ``F_SETOWN``, ``F_SETOWN_EX`` or
  ``F_SETSIG``, ``ioctl`` with ``FIOSETOWN`` or ``SIOCSPGRP`` (with ``O_ASYNC`` they deliver any signal,
  SIGKILL included, to any process, past every ``kill`` check). Both calls take ``cmd`` as an unsigned
  int, so the filter compares the low 32 bits of the argument, as the kernel reads it.

A syscall of a foreign ABI (i386 or x32 on x86_64, arm32 on aarch64) kills the process: its numbers
differ, so the deny list would not hold for it.
"""

import os
import struct
from collections.abc import Callable, Iterable
from typing import Any

AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
X32_SYSCALL_BIT = 0x40000000
RET_KILL_PROCESS, RET_ERRNO, RET_ALLOW = 0x80000000, 0x00050000, 0x7FFF0000
EPERM, ENOSYS = 1, 38

# name: (x86_64 number, aarch64 number); None where that architecture has no such call
DENIED_SYSCALLS = {
    "add_key": (248, 217),
    "keyctl": (250, 219),
    "request_key": (249, 218),
    "unshare": (272, 97),
    "setns": (308, 268),
    "mount": (165, 40),
    "umount2": (166, 39),
    "pivot_root": (155, 41),
    "chroot": (161, 51),
    "open_tree": (428, 428),
    "move_mount": (429, 429),
    "fsopen": (430, 430),
    "fsconfig": (431, 431),
    "fsmount": (432, 432),
    "fspick": (433, 433),
    "mount_setattr": (442, 442),
    "ptrace": (101, 117),
    "process_vm_readv": (310, 270),
    "process_vm_writev": (311, 271),
    "kcmp": (312, 272),
    "pidfd_getfd": (438, 438),
    "process_madvise": (440, 440),
    "bpf": (321, 280),
    "perf_event_open": (298, 241),
    "userfaultfd": (323, 282),
    "io_uring_setup": (425, 425),
    "io_uring_enter": (426, 426),
    "io_uring_register": (427, 427),
    "fanotify_init": (300, 262),
    "lookup_dcookie": (212, 18),
    "open_by_handle_at": (304, 265),
    "get_mempolicy": (239, 236),
    "mbind": (237, 235),
    "set_mempolicy": (238, 237),
    "set_mempolicy_home_node": (450, 450),
    "move_pages": (279, 239),
    "migrate_pages": (256, 238),
    "init_module": (175, 105),
    "finit_module": (313, 273),
    "delete_module": (176, 106),
    "kexec_load": (246, 104),
    "kexec_file_load": (320, 294),
    "reboot": (169, 142),
    "swapon": (167, 224),
    "swapoff": (168, 225),
    "settimeofday": (164, 170),
    "clock_settime": (227, 112),
    "sethostname": (170, 161),
    "setdomainname": (171, 162),
    "quotactl": (179, 60),
    "quotactl_fd": (443, 443),
    "acct": (163, 89),
    "syslog": (103, 116),
    "vhangup": (153, 58),
    "nfsservctl": (180, 42),
    "iopl": (172, None),
    "ioperm": (173, None),
    "uselib": (134, None),
    "ustat": (136, None),
    "sysfs": (139, None),
    "_sysctl": (156, None),
    "create_module": (174, None),
    "get_kernel_syms": (177, None),
    "query_module": (178, None),
}
CLONE, CLONE3, SOCKET, PERSONALITY = (56, 220), (435, 435), (41, 198), (135, 92)
CLONE_NEW_FLAGS = 0x7E020000  # CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET
AF_VSOCK = 40
FCNTL, IOCTL = (72, 25), (16, 29)  # no fcntl64 on either 64-bit ABI
F_SETOWN, F_SETSIG, F_SETOWN_EX = 8, 10, 15  # asm-generic values, shared by x86_64 and aarch64
FIOSETOWN, SIOCSPGRP = 0x8901, 0x8902
PERSONALITY_ALLOWED = (0x0, 0x8, 0x20000, 0x20008, 0xFFFFFFFF)  # Docker's: PER_LINUX, UNAME26, query...

_OPCODES = {"ld": 0x20, "jeq": 0x15, "jge": 0x35, "jset": 0x45, "ret": 0x06}  # BPF_LD|W|ABS, JMP|K, RET|K
NR, ARCH, ARG0, ARG1 = 0, 4, 16, 24  # offsets in struct seccomp_data (an argument's low word: little-endian only)


def assemble(code: Iterable[tuple[Any, ...]]) -> list[tuple[int, int, int, int]]:
    """Classic BPF from ``("ld", offset)``, ``("jeq"|"jge"|"jset", k, label)`` (jump when true, else go
    on), ``("ret", k)`` and ``("label", name)``; a list of ``(opcode, jt, jf, k)``."""
    where: dict[str, int] = {}
    count = 0
    for ins in code:
        if ins[0] == "label":
            where[ins[1]] = count
        else:
            count += 1
    prog: list[tuple[int, int, int, int]] = []
    for ins in code:
        if ins[0] == "label":
            continue
        if ins[0] in ("jeq", "jge", "jset"):
            jump = where[ins[2]] - len(prog) - 1
            if not 0 <= jump <= 255:
                raise ValueError(f"BPF jump to {ins[2]!r} out of range ({jump})")
            prog.append((_OPCODES[ins[0]], jump, 0, ins[1] & 0xFFFFFFFF))
        else:
            prog.append((_OPCODES[ins[0]], 0, 0, ins[1] & 0xFFFFFFFF))
    return prog


def filter_code(
    machine: str, checks: Iterable[tuple[Any, ...]] = (), blocks: Iterable[tuple[Any, ...]] = ()
) -> list[tuple[Any, ...]]:
    """The symbolic filter for ``machine`` (``os.uname().machine``): ABI check, deny list, then
    ``checks`` (run with the syscall number in A, falling through to allow) whose jump targets are
    labels of ``blocks``, or this filter's "deny" (EPERM) and "kill" (jumps go forward only)."""
    arch = AUDIT_ARCH[machine]
    column = 0 if machine == "x86_64" else 1
    code: list[tuple[Any, ...]] = [
        ("ld", ARCH),
        ("jeq", arch, "native"),
        ("ret", RET_KILL_PROCESS),
        ("label", "native"),
        ("ld", NR),
    ]
    if machine == "x86_64":
        code.append(("jge", X32_SYSCALL_BIT, "kill"))
    code += [("jeq", numbers[column], "deny") for numbers in DENIED_SYSCALLS.values() if numbers[column] is not None]
    code += [
        ("jeq", CLONE[column], "clone"),
        ("jeq", CLONE3[column], "enosys"),
        ("jeq", SOCKET[column], "socket"),
        ("jeq", PERSONALITY[column], "personality"),
        ("jeq", FCNTL[column], "fcntl"),
        ("jeq", IOCTL[column], "ioctl"),
    ]
    code += list(checks)
    code += [
        ("ret", RET_ALLOW),
        ("label", "clone"),
        ("ld", ARG0),
        ("jset", CLONE_NEW_FLAGS, "deny"),
        ("ret", RET_ALLOW),
        ("label", "socket"),
        ("ld", ARG0),
        ("jeq", AF_VSOCK, "deny"),
        ("ret", RET_ALLOW),
        ("label", "personality"),
        ("ld", ARG0),
    ]
    code += [("jeq", value, "persona_ok") for value in PERSONALITY_ALLOWED]
    code += [
        ("ret", RET_ERRNO | EPERM),
        ("label", "persona_ok"),
        ("ret", RET_ALLOW),
        ("label", "fcntl"),
        ("ld", ARG1),
        ("jeq", F_SETOWN, "deny"),
        ("jeq", F_SETSIG, "deny"),
        ("jeq", F_SETOWN_EX, "deny"),
        ("ret", RET_ALLOW),
        ("label", "ioctl"),
        ("ld", ARG1),
        ("jeq", FIOSETOWN, "deny"),
        ("jeq", SIOCSPGRP, "deny"),
        ("ret", RET_ALLOW),
        *blocks,
        ("label", "enosys"),
        ("ret", RET_ERRNO | ENOSYS),
        ("label", "deny"),
        ("ret", RET_ERRNO | EPERM),
        ("label", "kill"),
        ("ret", RET_KILL_PROCESS),
    ]
    return code


def pack(prog: Iterable[tuple[int, int, int, int]]) -> bytes:
    """The bytes of a ``struct sock_filter`` array (what ``bwrap --seccomp FD`` reads)."""
    return b"".join(struct.pack("=HBBI", *ins) for ins in prog)


def deny_filter(machine: str | None = None) -> bytes | None:
    """The packed deny-list filter for this machine (or ``machine``); None on an architecture we lack
    syscall numbers for."""
    machine = machine or os.uname().machine
    if machine not in AUDIT_ARCH:
        return None
    return pack(assemble(filter_code(machine)))


def filter_installer(raw: bytes) -> Callable[[], None]:
    """A callable that loads the packed filter ``raw`` into the calling process (and all it starts), after
    setting no_new_privs, raising OSError if the kernel refuses. Everything is prepared here, so the
    callable may run between fork and exec. Raises ImportError without ctypes."""
    import ctypes

    buf = ctypes.create_string_buffer(raw, len(raw))
    fprog = ctypes.create_string_buffer(struct.pack("=HxxxxxxQ", len(raw) // 8, ctypes.addressof(buf)), 16)
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]

    def install() -> None:
        keep = (buf, fprog)  # noqa: F841 - the kernel reads them during the call
        if prctl(38, 1, 0, 0, 0) != 0 or prctl(22, 2, ctypes.addressof(fprog), 0, 0) != 0:  # NO_NEW_PRIVS, SECCOMP
            err = ctypes.get_errno()
            raise OSError(err, f"cannot install the seccomp filter: {os.strerror(err)}")

    return install
