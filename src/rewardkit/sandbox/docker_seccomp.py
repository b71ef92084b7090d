"""The seccomp signal guard of the docker sandbox (stdlib only; prepended to the supervisor's source).

The command's first process plays the part PID 1 plays in the local backend's namespace: nothing it
starts can signal it. ``install_signal_guard`` loads a small BPF filter with ``prctl`` (through ctypes),
after no_new_privs, in the forked child just before it executes the command.
"""

import os
import struct

# Syscall numbers of the ways to signal a process, per audit arch: (kill, tgkill, rt_sigqueueinfo,
# rt_tgsigqueueinfo, pidfd_open) are checked by target; (tkill, pidfd_send_signal) are refused outright
# (one takes any thread id, the other also takes /proc/<pid> fds; libc uses neither for raise()).
SIGNAL_SYSCALLS = {
    0xC000003E: ((62, 234, 129, 297, 434), (200, 424)),  # x86_64
    0xC00000B7: ((129, 131, 138, 240, 434), (130, 424)),  # aarch64
}
EPERM, ESRCH = 1, 3
RET_ALLOW, RET_ERRNO, RET_KILL = 0x7FFF0000, 0x00050000, 0x80000000


def signal_guard_program(arch, protected):
    """A seccomp BPF program: nobody under it can signal ``protected``, the command's first process.

    That process plays the part PID 1 plays in the local backend's namespace, and the answers mimic
    what a process there gets when it is alone with its init: a signal to ``protected`` is dropped and
    the call returns 0 (as the kernel does for an init), while a signal to its group or to -1 fails with
    ESRCH (no process it may signal). tkill and pidfd_send_signal fail with EPERM. Foreign-ABI syscalls
    (x32, i386) kill the caller.
    """
    checked, refused = SIGNAL_SYSCALLS[arch]
    # (opcode, jump-if-true label, k); labels resolve to BPF's relative jump offsets below
    code = [("ld", None, 4), ("jeq", "nr", arch), ("ret", None, RET_KILL),
            ("ld", "nr", 0), ("jge", "kill", 0x40000000)]
    code += [("jeq", "deny", nr) for nr in refused]
    code += [("jeq", "args", nr) for nr in checked]
    code += [("ret", None, RET_ALLOW), ("ld", "args", 16), ("jeq", "drop", protected),
             ("jeq", "none", -protected & 0xFFFFFFFF), ("jeq", "none", 0xFFFFFFFF), ("ret", None, RET_ALLOW),
             ("ret", "drop", RET_ERRNO), ("ret", "none", RET_ERRNO | ESRCH), ("ret", "deny", RET_ERRNO | EPERM),
             ("ret", "kill", RET_KILL)]
    where = {}
    for index, (op, label, _k) in enumerate(code):
        if op in ("ld", "ret") and label is not None:
            where[label] = index
    opcodes = {"ld": 0x20, "jeq": 0x15, "jge": 0x35, "ret": 0x06}
    prog = []
    for index, (op, label, k) in enumerate(code):
        jt = where[label] - index - 1 if op in ("jeq", "jge") else 0
        prog.append((opcodes[op], jt, 0, k))
    return prog


def signal_guard_available():
    """Whether this Python and machine can install the guard (ctypes present, a known architecture)."""
    try:
        import ctypes  # noqa: F401
    except ImportError:
        return False
    return os.uname().machine in ("x86_64", "aarch64")


def install_signal_guard(protected):
    """Install the guard in this process (inherited by everything it starts). False if it cannot."""
    try:
        import ctypes
    except ImportError:
        return False
    machine = os.uname().machine
    arch = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}.get(machine)
    if arch is None:
        return False
    prog = signal_guard_program(arch, protected)
    raw = b"".join(struct.pack("<HBBI", *ins) for ins in prog)
    buf = ctypes.create_string_buffer(raw, len(raw))
    fprog = struct.pack("<HxxxxxxQ", len(prog), ctypes.addressof(buf))
    fbuf = ctypes.create_string_buffer(fprog, len(fprog))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    libc.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS
    return libc.prctl(22, 2, ctypes.addressof(fbuf), 0, 0) == 0  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER
