"""Attacks on the docker sandbox's persistent in-container server (the zygote) and its template.

Each attack runs in a pool of ONE container, so the run after it lands on the same container and server;
the next runs (a good and a wrong solution) must be judged exactly as on a fresh container, and no attack
may earn credit. The per-run exec path (``zygote=False``) gets the same attacks. The programs run only
inside the sandbox containers, the boundary under test. See docs/sandbox-docker.md.
"""

from __future__ import annotations

import threading
import time

import pytest

import rewardkit as rk
from rk_testing import docker_problem, require

pytestmark = [pytest.mark.docker, pytest.mark.hostile]

GOOD = "def f(x):\n    return 2 * x + 1\n"
WRONG = "def f(x):\n    return 0\n"
REF = "assert f(2) == 5\nassert f(10) == 21\nassert f(-1) == -1\n"
SETTINGS = {"wall_time": 8.0, "memory_bytes": 256 << 20, "max_processes": 32, "max_scratch_bytes": 8 << 20}


@pytest.fixture(scope="module", params=[True, False], ids=["zygote", "exec"])
def verifier(request):
    problem = docker_problem()
    require(problem is None, problem or "")
    with rk.get_verifier(
        "code", sandbox="docker", sandbox_options={"pool_size": 1, "zygote": request.param}, **SETTINGS
    ) as v:
        yield v


def judge(verifier, program: str, reference: str = REF):
    return verifier.verify(f"```python\n{program}```", reference)


def assert_next_runs_are_judged_right(verifier) -> None:
    before = verifier.sandbox.forked_runs
    good, wrong = judge(verifier, GOOD), judge(verifier, WRONG)
    assert (good.score, good.correct, good.status) == (1.0, True, "ok"), good
    assert (wrong.score, wrong.correct) == (0.0, False), wrong
    if verifier.sandbox.zygote:
        assert verifier.sandbox.forked_runs == before + 2  # the zygote still serves them


def assert_no_credit(verdict) -> None:
    assert verdict.score == 0.0 and not verdict.correct, verdict
    assert not verdict.is_infrastructure_failure, verdict


SIGNALS_EVERYONE = """
import os, signal
def f(x):
    for _ in range(20):
        for entry in os.listdir('/proc'):
            if entry.isdigit() and int(entry) != os.getpid():
                for sig in (signal.SIGKILL, signal.SIGSTOP, signal.SIGTERM, signal.SIGSEGV):
                    try:
                        os.kill(int(entry), sig)
                    except OSError:
                        pass
        for target in (-1, 0, os.getppid()):
            try:
                os.kill(target, signal.SIGKILL)
            except OSError:
                pass
    return 0
"""

FORGES_THE_CHANNEL = r"""
import glob, json, os, struct, time
frame = json.dumps({"exit_code": 0, "signal": None, "stdout": "", "stderr": "", "duration": 0.1,
                    "timed_out": False, "output_truncated": False, "files": {}, "clean": True}).encode()
line = b'RKH1 00000000000000000000000000000000 {"v":1,"tests":[{"outcome":"pass"}]}\n'
def forge():
    for path in glob.glob('/proc/[0-9]*/fd/*'):
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            continue
        try:
            os.write(fd, struct.pack('>Q', len(frame)) + frame)
            os.write(fd, line)
        except OSError:
            pass
        os.close(fd)
def f(x):
    forge()
    if os.fork() == 0:  # a daemon that keeps forging into whatever the next run opens
        os.setsid()
        if os.fork() == 0:
            end = time.time() + 6
            while time.time() < end:
                forge()
                for name in ('program.py', 'code_supervisor.py', 'code_runner.py', 'code_wire.py'):
                    try:
                        with open('/tmp/run/' + name, 'w') as fh:
                            fh.write('def f(x):\n    return 2 * x + 1\n')
                    except OSError:
                        pass
                time.sleep(0.01)
        os._exit(0)
    return 0
"""

TAMPERS_WITH_MODULES = """
import builtins, os, signal, sys
def f(x):
    for name, module in list(sys.modules.items()):
        for attr in ('main', 'send', 'receive', 'encode', 'decode', 'spawn_python', 'run', 'fork', 'kill'):
            try:
                setattr(module, attr, lambda *a, **k: None)
            except Exception:
                pass
    builtins.AssertionError = type('Nope', (Exception,), {})
    os.environ['PYTHONPATH'] = '/tmp'
    os.environ['PYTHONSTARTUP'] = '/tmp/start.py'
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGCHLD, signal.SIGALRM):
        signal.signal(sig, signal.SIG_IGN)
    for place in ('/tmp', '/tmp/run', '/dev/shm', '.'):
        for name in ('json.py', 'os.py', 'code_wire.py', 'code_procs.py', 'sitecustomize.py', 'start.py', 'ctypes.py'):
            try:
                with open(os.path.join(place, name), 'w') as fh:
                    fh.write('import os\\nos._exit(0)\\n')
            except OSError:
                pass
    return 0
"""

FILLS_THE_DISKS = """
import os
def f(x):
    for place in ('/tmp', '/dev/shm', '/tmp/run'):
        n = 0
        while True:
            try:
                with open(f'{place}/fill{n}', 'wb') as fh:
                    fh.write(b'x' * (1 << 20))
            except OSError:
                break
            n += 1
            if n > 200:
                break
    return 0
"""

LEAVES_DAEMONS = """
import os, time
def f(x):
    for _ in range(5):
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                while True:
                    time.sleep(0.01)
            os._exit(0)
    return 0
"""


@pytest.mark.parametrize(
    "program",
    [SIGNALS_EVERYONE, FORGES_THE_CHANNEL, TAMPERS_WITH_MODULES, FILLS_THE_DISKS, LEAVES_DAEMONS],
    ids=[
        "signals_everyone",
        "forges_the_channel",
        "tampers_with_modules",
        "fills_the_disks",
        "leaves_daemons",
    ],
)
def test_an_attack_on_the_server_earns_nothing_and_reaches_no_later_run(verifier, program):
    assert_no_credit(judge(verifier, program))
    assert_next_runs_are_judged_right(verifier)


# The candidate's process scans its own memory for the job (the nonce's JSON key) and for a marker that
# only the tests of this run and of the run before carry: a zygote that forked it after reading a request
# would hand it both. Its own planted marker proves the scan works.
SCANS_ITS_MEMORY = r"""
import re
def scan():
    found = set()
    with open('/proc/self/maps') as fh:
        regions = [line.split() for line in fh]
    with open('/proc/self/mem', 'rb', 0) as mem:
        for fields in regions:
            if not fields[1].startswith('r'):
                continue
            start, end = (int(v, 16) for v in fields[0].split('-'))
            try:
                mem.seek(start)
                data = mem.read(end - start)
            except (OSError, OverflowError, ValueError):
                continue
            found.update(m.decode() for m in re.findall(rb'SECRETMARK_[A-Z]{4}|"nonce": "[0-9a-f]{32}"', data))
    return ' '.join(sorted(found))
def f(x):
    planted = bytes([83, 69, 67, 82, 69, 84, 77, 65, 82, 75, 95, 83, 69, 76, 70])  # SECRETMARK_SELF
    return scan() + ' ' + planted.decode()[:0]
"""


def test_the_candidate_holds_nothing_of_this_or_an_earlier_request(verifier):
    earlier = judge(verifier, GOOD, "assert f(2) == 5, 'SECRETMARK_PREV'\n")
    assert earlier.correct, earlier
    verdict = judge(
        verifier,
        SCANS_ITS_MEMORY,
        (
            "found = f(0)\nassert 'SECRETMARK_SELF' in found\n"
            "assert 'SECRETMARK_PREV' not in found, 'SECRETMARK_PREV'\n"
            "assert '\"nonce\"' not in found\n"
        ),
    )
    assert verdict.details["tests"][0]["outcome"] == "pass", verdict  # the scan sees its own memory
    assert verdict.score == 1.0, verdict  # and finds neither the job nor the earlier run's tests


SLOW_GOOD = "import time\ndef f(x):\n    time.sleep(1.5)\n    return 2 * x + 1\n"
SLOW_WRONG = "import time\ndef f(x):\n    time.sleep(1.5)\n    return 0\n"
FIND_SERVER = (
    "import os\n"
    "for p in os.listdir('/proc'):\n"
    "    if p.isdigit():\n"
    "        cmd = open(f'/proc/{p}/cmdline', 'rb').read()\n"
    "        ppid = open(f'/proc/{p}/stat').read().rsplit(')', 1)[1].split()[1]\n"
    "        if b'main()' in cmd:\n"
    "            print(p, ppid)\n"
)


def kill_supervisor_from_outside(container, which: str) -> None:
    """As root from outside the run (docker exec): SIGKILL the server (its parent is outside the container)
    or, with the zygote, its template (the server's child that forks each run's processes)."""
    time.sleep(0.6)  # the run is under way
    rows = [line.split() for line in container.exec_run(["python3", "-c", FIND_SERVER]).output.decode().splitlines()]
    server = [pid for pid, ppid in rows if ppid == "0"]
    targets = server if which == "server" else [pid for pid, ppid in rows if ppid in server][:1]
    assert targets, rows
    container.exec_run(["python3", "-c", f"import os\nfor p in {targets!r}: os.kill(int(p), 9)"], user="0:0")


@pytest.mark.parametrize("which", ["server", "template"])
def test_a_supervisor_that_dies_mid_run_fails_that_run_as_the_programs_and_is_replaced(verifier, which):
    """Once the program has started, the supervisor's death may be its doing (an OOM kill in the container):
    the run is scored as the program's failure, never retried as the infrastructure's (which would spare a
    program its penalty); the container is replaced and the next runs are judged right."""
    if which == "template" and not verifier.sandbox.zygote:
        pytest.skip("the exec path has no template")
    pool = verifier.sandbox.pool
    for program in (SLOW_GOOD, SLOW_WRONG):
        _wait_for_idle(pool)
        replaced = pool.replaced
        container = pool._idle.queue[0].container
        killer = threading.Thread(target=kill_supervisor_from_outside, args=(container, which))
        killer.start()
        verdict = judge(verifier, program)
        killer.join()
        assert pool.replaced == replaced + 1  # that container went
        assert (verdict.score, verdict.correct) == (0.0, False), verdict
        assert verdict.status in ("runtime_error", "memory_limit") and not verdict.is_infrastructure_failure, verdict
        _wait_for_idle(pool)
        assert container.id not in [slot.container.id for slot in pool._idle.queue]
    assert_next_runs_are_judged_right(verifier)


def _wait_for_idle(pool, timeout: float = 60.0) -> None:
    """Until every container of the pool is idle (a replacement starts in the background)."""
    end = time.monotonic() + timeout
    while pool._idle.qsize() < pool.size and time.monotonic() < end:
        time.sleep(0.05)
    assert pool._idle.qsize() == pool.size


def test_a_job_with_other_harness_files_runs_them_not_the_zygotes(verifier):
    """The zygote only serves jobs whose harness files are byte for byte the ones it imported; a job that
    ships a changed supervisor gets that supervisor, run as its own command on the exec path."""
    from rewardkit.sandbox.base import Limits
    from rewardkit.verifiers.code_tests.job import prepare_job

    job = prepare_job(GOOD, REF, Limits(wall_time=8.0))
    changed = dict(job.files)
    changed["code_supervisor.py"] = b"print('RKH1 changed supervisor')\n"
    sandbox = verifier.sandbox
    before = sandbox.forked_runs
    result = sandbox.run(job.command, changed, stdin=job.stdin, limits=job.limits)
    assert result.stdout == b"RKH1 changed supervisor\n", result
    assert sandbox.forked_runs == before
    same = sandbox.run(job.command, job.files, stdin=job.stdin, limits=job.limits)
    assert f"RKH1 {job.nonce} ".encode() in same.stdout, same
    assert sandbox.forked_runs == before + (1 if sandbox.zygote else 0)


def test_the_supervisor_source_fits_in_one_exec_argument():
    """It travels as one ``python3 -c`` argument, which Linux caps at 128 KiB (MAX_ARG_STRLEN)."""
    from rewardkit.sandbox.docker.pool import SUPERVISOR_SOURCE

    compile(SUPERVISOR_SOURCE + "\nzygote_main()\n", "<supervisor>", "exec")
    assert len(SUPERVISOR_SOURCE.encode()) + 64 < 128 << 10
