"""The seccomp filter of the docker sandbox's programs: the shared deny list plus a signal guard
(stdlib only; prepended, after ``seccomp_bpf.py``, to the supervisor's source).

The command's first process plays the part PID 1 plays in the local backend's namespace: nothing it
starts can signal it. ``install_signal_guard`` loads one BPF program with ``prctl`` (through ctypes),
after no_new_privs, in the forked child just before it executes the command: the deny list of
:mod:`rewardkit.sandbox.seccomp_bpf` (the same one the local backend applies; it holds whatever
seccomp profile the engine applies on top), then the guard.
"""

import os
import struct

if "filter_code" not in globals():  # on the host; in a container seccomp_bpf.py is prepended
    from rewardkit.sandbox.seccomp_bpf import (
        AUDIT_ARCH,
        RET_ALLOW,
        RET_ERRNO,
        assemble,
        filter_code,
        pack,
    )

# Syscall numbers of the ways to signal a process, per audit arch: (kill, tgkill, rt_sigqueueinfo,
# rt_tgsigqueueinfo, pidfd_open) are checked by target; (tkill, pidfd_send_signal) are refused outright
# (one takes any thread id, the other also takes /proc/<pid> fds; libc uses neither for raise()).
SIGNAL_SYSCALLS = {
    0xC000003E: ((62, 234, 129, 297, 434), (200, 424)),  # x86_64
    0xC00000B7: ((129, 131, 138, 240, 434), (130, 424)),  # aarch64
}
ESRCH = 3


def signal_guard_program(arch, protected):
    """A seccomp BPF program: the shared deny list, and nobody under it can signal ``protected``.

    ``protected`` is the command's first process. It plays the part PID 1 plays in the local backend's
    namespace, and the answers mimic what a process there gets when it is alone with its init: a
    signal to ``protected`` is dropped and the call returns 0 (as the kernel does for an init), while a
    signal to its group or to -1 fails with ESRCH (no process it may signal). tkill and
    pidfd_send_signal fail with EPERM. Foreign-ABI syscalls (x32, i386) kill the caller.
    """
    machine = {number: name for name, number in AUDIT_ARCH.items()}[arch]
    checked, refused = SIGNAL_SYSCALLS[arch]
    # refused ones go to filter_code's "deny" (EPERM), checked ones to the target test below
    checks = [("jeq", nr, "deny") for nr in refused] + [("jeq", nr, "signal") for nr in checked]
    blocks = [
        ("label", "signal"),
        ("ld", 16),
        ("jeq", protected, "dropped"),
        ("jeq", -protected & 0xFFFFFFFF, "no_process"),
        ("jeq", 0xFFFFFFFF, "no_process"),
        ("ret", RET_ALLOW),
        ("label", "dropped"),
        ("ret", RET_ERRNO),
        ("label", "no_process"),
        ("ret", RET_ERRNO | ESRCH),
    ]
    return assemble(filter_code(machine, checks, blocks))


# The guard program differs between runs only in the protected pid: it is assembled once (in the
# supervisor, before it forks) around a placeholder no other constant of the filter uses, then filled in.
PLACEHOLDER_PID = 0x3FFFFFF1
_TEMPLATES = {}


def guard_program_for(arch, protected):
    """``signal_guard_program(arch, protected)``, from a template assembled once per process tree."""
    template = _TEMPLATES.get(arch)
    if template is None:
        template = _TEMPLATES[arch] = signal_guard_program(arch, PLACEHOLDER_PID)
    swap = {PLACEHOLDER_PID: protected & 0xFFFFFFFF, -PLACEHOLDER_PID & 0xFFFFFFFF: -protected & 0xFFFFFFFF}
    return [(op, jt, jf, swap.get(k, k)) for op, jt, jf, k in template]


def signal_guard_available():
    """Whether this Python and machine can install the guard (ctypes present, a known architecture)."""
    try:
        import ctypes  # noqa: F401
    except ImportError:
        return False
    return os.uname().machine in AUDIT_ARCH


_PRCTL = []


def prctl_function():
    """libc's prctl through ctypes, looked up once per process tree (the supervisor warms it before it forks)."""
    if not _PRCTL:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
        prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
        _PRCTL.append(prctl)
    return _PRCTL[0]


def load_filter(raw):
    """``filter_installer(raw)()`` with the cached prctl: no_new_privs, then the filter; OSError if refused."""
    import ctypes

    buf = ctypes.create_string_buffer(raw, len(raw))
    fprog = ctypes.create_string_buffer(struct.pack("=HxxxxxxQ", len(raw) // 8, ctypes.addressof(buf)), 16)
    prctl = prctl_function()
    if prctl(38, 1, 0, 0, 0) != 0 or prctl(22, 2, ctypes.addressof(fprog), 0, 0) != 0:  # NO_NEW_PRIVS, SECCOMP
        err = ctypes.get_errno()
        raise OSError(err, f"cannot install the seccomp filter: {os.strerror(err)}")


def install_signal_guard(protected):
    """Install the filter in this process (inherited by everything it starts).

    False where it is unavailable (no ctypes, an unknown architecture); OSError where the kernel
    refuses it, so that the program does not start unfiltered."""
    if not signal_guard_available():
        return False
    arch = AUDIT_ARCH[os.uname().machine]
    load_filter(pack(guard_program_for(arch, protected)))
    return True
