"""The seccomp programs, run through a small classic-BPF interpreter for both architectures (the kernel
runs them for real in tests/hostile/kernel_state_programs.py and tests/sandbox/docker/test_docker_kernel_state.py),
and the syscall table checked against the kernel headers where they are installed."""

from __future__ import annotations

import os
import re
import struct

import pytest

from rewardkit.sandbox import seccomp_bpf
from rewardkit.sandbox.seccomp_bpf import (
    AUDIT_ARCH,
    CLONE,
    CLONE3,
    DENIED_SYSCALLS,
    FCNTL,
    IOCTL,
    PERSONALITY,
    RET_ALLOW,
    RET_ERRNO,
    RET_KILL_PROCESS,
    SOCKET,
    assemble,
    deny_filter,
    filter_code,
)
from rk_testing import require

EPERM, ESRCH, ENOSYS = RET_ERRNO | 1, RET_ERRNO | 3, RET_ERRNO | 38
MACHINES = ["x86_64", "aarch64"]
I386, ARM, X32_BIT = 0x40000003, 0x40000028, 0x40000000
# a few calls every program makes: read, write, openat, mmap, futex, execve, exit_group
ORDINARY = {"x86_64": (0, 1, 257, 9, 202, 59, 231), "aarch64": (63, 64, 56, 222, 98, 221, 94)}


def run_bpf(prog: list[tuple[int, int, int, int]], nr: int, arch: int, args: tuple[int, ...] = ()) -> int:
    """Classic BPF as the kernel runs it on a struct seccomp_data (little-endian)."""
    full = (list(args) + [0] * 6)[:6]
    data = struct.pack("<iIQ6Q", nr, arch, 0, *[a & 0xFFFFFFFFFFFFFFFF for a in full])
    acc, pc = 0, 0
    while True:
        code, jt, jf, k = prog[pc]
        if code == 0x20:
            acc = struct.unpack_from("<I", data, k)[0]
        elif code == 0x06:
            return k
        elif code in (0x15, 0x35, 0x45):
            hit = {0x15: acc == k, 0x35: acc >= k, 0x45: bool(acc & k)}[code]
            pc += jt if hit else jf
        else:
            raise AssertionError(f"unexpected opcode {code:#x}")
        pc += 1


def column(machine: str) -> int:
    return MACHINES.index(machine)


@pytest.mark.parametrize("machine", MACHINES)
def test_every_denied_call_gets_eperm_and_ordinary_calls_pass(machine: str) -> None:
    prog = assemble(filter_code(machine))
    arch = AUDIT_ARCH[machine]
    denied = [numbers[column(machine)] for numbers in DENIED_SYSCALLS.values() if numbers[column(machine)] is not None]
    assert len(denied) >= 50
    for nr in denied:
        assert run_bpf(prog, nr, arch) == EPERM, nr
    for nr in ORDINARY[machine]:
        assert run_bpf(prog, nr, arch) == RET_ALLOW, nr


@pytest.mark.parametrize("machine", MACHINES)
def test_argument_checks(machine: str) -> None:
    prog, arch, col = assemble(filter_code(machine)), AUDIT_ARCH[machine], column(machine)
    assert run_bpf(prog, CLONE[col], arch, (0x3D0F00,)) == RET_ALLOW  # glibc's pthread_create flags
    assert run_bpf(prog, CLONE[col], arch, (0x1200011,)) == RET_ALLOW  # fork()
    for flag in (0x20000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000):
        assert run_bpf(prog, CLONE[col], arch, (flag | 17,)) == EPERM, hex(flag)
    assert run_bpf(prog, CLONE3[col], arch) == ENOSYS
    assert run_bpf(prog, SOCKET[col], arch, (40, 1, 0)) == EPERM  # AF_VSOCK
    for family in (1, 2, 10, 16):  # unix, inet, inet6, netlink
        assert run_bpf(prog, SOCKET[col], arch, (family, 1, 0)) == RET_ALLOW
    for value in (0, 8, 0x20000, 0x20008, 0xFFFFFFFF):
        assert run_bpf(prog, PERSONALITY[col], arch, (value,)) == RET_ALLOW
    assert run_bpf(prog, PERSONALITY[col], arch, (0x0040000,)) == EPERM  # ADDR_NO_RANDOMIZE


ASYNC_OWNER_FCNTL = {"F_SETOWN": 8, "F_SETSIG": 10, "F_SETOWN_EX": 15}
ASYNC_OWNER_IOCTL = {"FIOSETOWN": 0x8901, "SIOCSPGRP": 0x8902}
# what ordinary programs do: F_DUPFD, F_GETFD/SETFD, F_GETFL/SETFL, F_GETLK/SETLK/SETLKW, F_GETOWN, F_GETSIG,
# F_GETOWN_EX, F_SETLEASE/GETLEASE, F_NOTIFY, F_DUPFD_CLOEXEC, F_SETPIPE_SZ, F_ADD_SEALS, F_OFD_SETLK
ORDINARY_FCNTL = (0, 1, 2, 3, 4, 5, 6, 7, 9, 11, 16, 1024, 1025, 1026, 1030, 1031, 1033, 37)
# TCGETS, TIOCGWINSZ, FIONREAD, FIONBIO, FIOASYNC, FIOCLEX, FIOGETOWN, SIOCGPGRP, SIOCGIFINDEX
ORDINARY_IOCTL = (0x5401, 0x5413, 0x541B, 0x5421, 0x5452, 0x5451, 0x8903, 0x8904, 0x8933)


def _async_owner_checks(prog: list[tuple[int, int, int, int]], machine: str) -> None:
    arch, col = AUDIT_ARCH[machine], column(machine)
    for name, cmd in ASYNC_OWNER_FCNTL.items():
        assert run_bpf(prog, FCNTL[col], arch, (3, cmd, 1)) == EPERM, name
        # the kernel reads cmd as an unsigned int: garbage in the high word must not get it through
        assert run_bpf(prog, FCNTL[col], arch, (3, cmd | 0xABCD << 32, 1)) == EPERM, name
    for name, cmd in ASYNC_OWNER_IOCTL.items():
        assert run_bpf(prog, IOCTL[col], arch, (3, cmd, 0)) == EPERM, name
        assert run_bpf(prog, IOCTL[col], arch, (3, cmd | 1 << 63, 0)) == EPERM, name
    for cmd in ORDINARY_FCNTL:
        assert run_bpf(prog, FCNTL[col], arch, (3, cmd, 8)) == RET_ALLOW, cmd
    for cmd in ORDINARY_IOCTL:
        assert run_bpf(prog, IOCTL[col], arch, (3, cmd, 8)) == RET_ALLOW, hex(cmd)
    # the fd or the owner (args 0 and 2) never matter, only the command
    assert run_bpf(prog, FCNTL[col], arch, (8, 3, 8)) == RET_ALLOW
    assert run_bpf(prog, IOCTL[col], arch, (0x8901, 0x5401, 0x8901)) == RET_ALLOW


@pytest.mark.parametrize("machine", MACHINES)
def test_choosing_the_async_io_signal_target_is_refused(machine: str) -> None:
    _async_owner_checks(assemble(filter_code(machine)), machine)


def test_foreign_abis_are_killed() -> None:
    x86, arm = assemble(filter_code("x86_64")), assemble(filter_code("aarch64"))
    assert run_bpf(x86, 20, I386) == RET_KILL_PROCESS  # i386 getpid through int 0x80
    assert run_bpf(x86, X32_BIT | 39, AUDIT_ARCH["x86_64"]) == RET_KILL_PROCESS  # x32 getpid
    assert run_bpf(x86, 39, AUDIT_ARCH["aarch64"]) == RET_KILL_PROCESS
    assert run_bpf(arm, 20, ARM) == RET_KILL_PROCESS
    assert run_bpf(arm, 172, AUDIT_ARCH["x86_64"]) == RET_KILL_PROCESS


def test_jumps_only_go_forward_and_within_range() -> None:
    with pytest.raises(ValueError, match="out of range"):
        assemble([("label", "back"), ("ld", 0), ("jeq", 1, "back"), ("ret", 0)])
    with pytest.raises(ValueError, match="out of range"):
        assemble([("ld", 0), ("jeq", 1, "far"), *[("ret", 0)] * 300, ("label", "far"), ("ret", 0)])
    assert deny_filter("ppc64le") is None
    assert len(deny_filter("x86_64")) % 8 == 0


HEADERS = {
    "x86_64": ("/usr/include/x86_64-linux-gnu/asm/unistd_64.h", r"__NR_(\w+)"),
    "aarch64": ("/usr/include/asm-generic/unistd.h", r"__NR(?:3264)?_(\w+)"),
}


@pytest.mark.parametrize("machine", MACHINES)
def test_the_syscall_numbers_match_the_kernel_headers(machine: str) -> None:
    path, name_re = HEADERS[machine]
    require(os.path.exists(path), f"{path} is not installed (linux-libc-dev)")
    with open(path) as fh:
        table = {m.group(1): int(m.group(2)) for m in re.finditer(rf"#define {name_re}\s+(\d+)\b", fh.read())}
    named = {
        **DENIED_SYSCALLS,
        "clone": CLONE,
        "clone3": CLONE3,
        "socket": SOCKET,
        "personality": PERSONALITY,
        "fcntl": FCNTL,
        "ioctl": IOCTL,
    }
    checked = 0
    for name, numbers in named.items():
        number = numbers[column(machine)]
        if number is None:
            assert name not in table, name
            continue
        assert table.get(name) == number, name
        checked += 1
    assert checked >= 57
    assert "fcntl64" not in table or machine == "aarch64"  # aarch64's header aliases it to fcntl (25)


def test_the_async_owner_commands_match_the_kernel_headers() -> None:
    found: dict[str, int] = {}
    for path in ("/usr/include/asm-generic/fcntl.h", "/usr/include/asm-generic/sockios.h"):
        require(os.path.exists(path), f"{path} is not installed (linux-libc-dev)")
        with open(path) as fh:
            text = fh.read()
        for m in re.finditer(r"#define\s+(\w+)\s+(0x[0-9a-fA-F]+|\d+)\b", text):
            found[m.group(1)] = int(m.group(2), 16 if m.group(2).startswith("0x") else 10)
    for name, value in {**ASYNC_OWNER_FCNTL, **ASYNC_OWNER_IOCTL}.items():
        assert found[name] == value, name
    assert (seccomp_bpf.F_SETOWN, seccomp_bpf.F_SETSIG, seccomp_bpf.F_SETOWN_EX) == (8, 10, 15)
    assert (seccomp_bpf.FIOSETOWN, seccomp_bpf.SIOCSPGRP) == (0x8901, 0x8902)
    assert seccomp_bpf.X32_SYSCALL_BIT == X32_BIT
