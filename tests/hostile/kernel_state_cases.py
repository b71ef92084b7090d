"""Programs that try to leave state in the kernel for a later run, shared by the local suite
(kernel_state_programs.py, inside the boundary) and the docker one (tests/sandbox). Only text here:
importing this module runs nothing hostile."""

from __future__ import annotations

import os

from rewardkit.sandbox.seccomp_bpf import CLONE, CLONE3, DENIED_SYSCALLS, PERSONALITY, SOCKET

COLUMN = {"x86_64": 0, "aarch64": 1}[os.uname().machine]
EPERM, ENOSYS, SIGSYS = 1, 38, 31

# A program's helper: raw syscalls through libc, returning 0 on success or the errno.
SYSCALL = (
    f"CHILD_ON_ZERO = ({CLONE[COLUMN]},)\n"
    + r"""
import ctypes, json, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def call(nr, *args):
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) if isinstance(a, int) else a for a in args])
    if r == 0 and nr in CHILD_ON_ZERO:
        os._exit(0)  # a clone that made a child: the child leaves at once
    return 0 if r >= 0 else ctypes.get_errno()
def s(text):
    return ctypes.c_char_p(text.encode())
"""
)


def nr(name: str) -> int:
    number = DENIED_SYSCALLS[name][COLUMN]
    assert number is not None
    return number


def denied_calls() -> dict[str, tuple[int, tuple]]:
    """Each a call that, where it is not filtered, may well succeed (so EPERM shows the filter)."""
    return {
        "add_key": (nr("add_key"), ("s('user')", "s('k')", "s('v')", 1, -4)),
        "keyctl": (nr("keyctl"), (0, -4, 1)),
        "unshare_user": (nr("unshare"), (0x10000000,)),
        "unshare_net": (nr("unshare"), (0x40000000,)),
        "clone_newuser": (CLONE[COLUMN], (0x10000000 | 17, 0, 0, 0, 0)),
        "clone_newpid": (CLONE[COLUMN], (0x20000000 | 17, 0, 0, 0, 0)),
        "setns": (nr("setns"), (-1, 0)),
        "mount": (nr("mount"), ("s('none')", "s('/sandbox')", "s('tmpfs')", 0, 0)),
        "fsopen": (nr("fsopen"), ("s('tmpfs')", 0)),
        "ptrace_traceme": (nr("ptrace"), (0, 0, 0, 0)),
        "ptrace_attach_parent": (nr("ptrace"), (16, "os.getppid()", 0, 0)),
        "process_vm_readv": (nr("process_vm_readv"), ("os.getppid()", 0, 0, 0, 0, 0)),
        "bpf": (nr("bpf"), (0, 0, 0)),
        "io_uring_setup": (nr("io_uring_setup"), (1, "ctypes.create_string_buffer(120)")),
        "perf_event_open": (nr("perf_event_open"), (0, 0, -1, -1, 0)),
        "userfaultfd": (nr("userfaultfd"), (0,)),
        "vsock": (SOCKET[COLUMN], (40, 1, 0)),
        "personality_no_aslr": (PERSONALITY[COLUMN], (0x0040000,)),
    }


def denied_calls_program() -> str:
    """Prints a JSON object: each of denied_calls() to its errno (0: it succeeded), plus clone3's errno
    and whether a plain getpid went through the same helper."""
    lines = [
        f"out[{name!r}] = call({number}, {', '.join(str(a) for a in args)})"
        for name, (number, args) in denied_calls().items()
    ]
    return (
        SYSCALL
        + "out = {}\n"
        + "\n".join(lines)
        + (
            f"\nout['clone3'] = call({CLONE3[COLUMN]}, 0, 0)\n"
            "out['getpid_works'] = call(39 if os.uname().machine == 'x86_64' else 172) == 0\n"
            "print(json.dumps(out))\n"
        )
    )


FOREIGN_ABI = r"""
import ctypes, mmap, os
def run_code(code):
    page = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    page.write(code)
    fn = ctypes.CFUNCTYPE(ctypes.c_long)(ctypes.addressof(ctypes.c_char.from_buffer(page)))
    pid = os.fork()
    if pid == 0:
        fn()
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    return os.WTERMSIG(status) if os.WIFSIGNALED(status) else -os.WEXITSTATUS(status)
i386_getpid = b"\xb8\x14\x00\x00\x00\xcd\x80\xc3"        # mov eax, 20; int 0x80; ret
x32_getpid = b"\xb8\x27\x00\x00\x40\x0f\x05\xc3"         # mov eax, 0x40000000 | 39; syscall; ret
print(run_code(i386_getpid), run_code(x32_getpid))
"""
