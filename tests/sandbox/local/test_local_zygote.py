"""The local sandbox's warm zygote, for real: what one run does never reaches the next run or the zygote,
a dead zygote is replaced, verdicts are those of the fork-exec path (``zygote=False``).

Only well-behaved programs and tampering that cannot hurt the host here (no fork bombs, no kill(-1),
no signals to guessed pids); the attacks on other processes run inside tests/hostile's boundary
(tests/hostile/zygote_programs.py).
"""

from __future__ import annotations

import os
import shutil
import signal
import time

import pytest

import rewardkit as rk
from rewardkit import profiling
from rewardkit.sandbox.local.sandbox import LocalSandbox
from rewardkit.verifiers.code_tests.job import warm_program
from rk_testing import require

MARK = "67.4321"  # in the cmdline of the daemons the tampering run leaves
TAMPER = f"""
import builtins, json, os, signal, subprocess, sys, time
os.environ["RK_LEAK"] = "1"
os.environ["PATH"] = "/nowhere"
builtins.RK_LEAK = 1
json.RK_LEAK = 1
json.load = None
for name in ("code_wire", "code_runner", "code_supervisor", "code_procs"):
    module = sys.modules.get(name)
    if module is not None:
        module.RK_LEAK = 1
sys.modules["rk_leak_module"] = json
sys.path.insert(0, "/dev/shm")
signal.signal(signal.SIGUSR1, signal.SIG_IGN)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
for directory in ("/tmp", "/dev/shm", "/var/tmp", os.getcwd()):
    try:
        with open(os.path.join(directory, "rk_leak"), "w") as fh:
            fh.write("left")
    except OSError:
        pass
subprocess.Popen(["/bin/sleep", "{MARK}"], start_new_session=True, env={{}})
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.closerange(3, 1 << 16)  # not holding the runner's pipes: the run goes on
        os.execv("/bin/sleep", ["sleep", "{MARK}"])
    os._exit(0)
os.chdir("/")
os.umask(0o777)

def f():
    return 1
"""
PROBE = f"""
import builtins, json, os, signal, sys

def probe():
    leaks = []
    if "RK_LEAK" in os.environ or os.environ.get("PATH") == "/nowhere":
        leaks.append("environment")
    if hasattr(builtins, "RK_LEAK"):
        leaks.append("builtins")
    if hasattr(json, "RK_LEAK") or json.load is None:
        leaks.append("json module")
    if any(hasattr(module, "RK_LEAK") for module in list(sys.modules.values())):
        leaks.append("an imported module")
    if "rk_leak_module" in sys.modules or "/dev/shm" in sys.path:
        leaks.append("sys.modules / sys.path")
    if signal.getsignal(signal.SIGUSR1) is not signal.SIG_DFL or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        leaks.append("signal handlers")
    for directory in ("/tmp", "/dev/shm", "/var/tmp", os.getcwd()):
        if os.path.exists(os.path.join(directory, "rk_leak")):
            leaks.append(directory)
    if os.getcwd() not in ("/sandbox", "/tmp"):
        leaks.append("cwd " + os.getcwd())
    mask = os.umask(0o022)
    if mask != 0o022:
        leaks.append("umask")
    for pid in os.listdir("/proc"):
        try:
            with open(f"/proc/{{pid}}/cmdline", "rb") as fh:
                if b"{MARK}" in fh.read():
                    leaks.append("a daemon")
        except OSError:
            pass
    return leaks
"""
ENV_PROBE = """
import glob, os
def probe():
    found = os.environ.get("RK_ZYGOTE_TEST_SECRET", "")
    for path in glob.glob("/proc/*/environ"):
        try:
            found += open(path, "rb").read().decode("latin-1")
        except OSError:
            pass
    return "zygote-secret" in found
"""
TAMPER_REF = {"test": "def check(candidate):\n    assert candidate() == 1\n", "entry_point": "f"}
PROBE_REF = {"test": "def check(candidate):\n    assert candidate() == []\n", "entry_point": "probe"}
ISOLATIONS = ["bwrap", "unshare"]


def _box(isolation: str, **options) -> LocalSandbox:
    require(os.geteuid() == 0, "the warm zygote needs root")
    require(shutil.which("bwrap") is not None or isolation != "bwrap", "bubblewrap (bwrap) is not installed")
    return LocalSandbox(isolation=isolation, zygote=True, warm=warm_program(), **options)


def _daemons() -> list[int]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                if MARK.encode() in fh.read():
                    found.append(int(pid))
        except OSError:
            pass
    return found


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_nothing_a_run_changes_reaches_the_next_run_or_the_zygote(isolation: str) -> None:
    with _box(isolation) as box, rk.get_verifier("code", sandbox=box, wall_time=8) as verifier:
        clean = verifier.verify(PROBE, PROBE_REF)
        assert clean.correct, clean  # the probe itself finds nothing on a fresh zygote
        [zygote] = box._zygotes.idle()
        tampered = verifier.verify(TAMPER, TAMPER_REF)
        assert tampered.correct, tampered
        assert _daemons() == [], "a daemon of the run outlived it"
        after = verifier.verify(PROBE, PROBE_REF)
        assert after.correct, after.details
        assert box._zygotes.idle() == [zygote], "the same zygote must have served all three runs"


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_the_callers_environment_is_not_in_any_run_process(isolation: str, monkeypatch) -> None:
    monkeypatch.setenv("RK_ZYGOTE_TEST_SECRET", "zygote-secret")
    reference = {"test": "def check(candidate):\n    assert candidate() is False\n", "entry_point": "probe"}
    with _box(isolation) as box, rk.get_verifier("code", sandbox=box) as verifier:
        verdict = verifier.verify(ENV_PROBE, reference)
    assert verdict.correct, verdict


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_a_killed_zygote_is_replaced_and_the_verdict_is_unaffected(isolation: str) -> None:
    with _box(isolation) as box, rk.get_verifier("code", sandbox=box, wall_time=8) as verifier:
        assert verifier.verify(PROBE, PROBE_REF).correct
        [zygote] = box._zygotes.idle()
        os.kill(zygote.pid, signal.SIGKILL)
        deadline = time.monotonic() + 5
        while zygote.alive() and time.monotonic() < deadline:
            time.sleep(0.01)
        verdict = verifier.verify(PROBE, PROBE_REF)
        assert verdict.correct and not verdict.is_infrastructure_failure, verdict
        [replacement] = box._zygotes.idle()
        assert replacement is not zygote and replacement.alive()


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_a_zygote_that_dies_during_a_run_fails_that_run_as_the_programs_and_is_replaced(isolation: str) -> None:
    """Once the program has started, a failure may be its doing (an OOM kill that took the zygote): it is never
    a retryable infrastructure failure, which would spare the program its penalty."""
    slow = "import time\ndef f():\n    time.sleep(2)\n    return 1\n"
    with _box(isolation) as box, rk.get_verifier("code", sandbox=box, wall_time=8) as verifier:
        assert verifier.verify(PROBE, PROBE_REF).correct
        [zygote] = box._zygotes.idle()
        import threading

        threading.Timer(0.8, os.kill, (zygote.pid, signal.SIGKILL)).start()
        verdict = verifier.verify(slow, TAMPER_REF)
        assert (verdict.score, verdict.correct, verdict.status) == (0.0, False, "runtime_error"), verdict
        assert not verdict.is_infrastructure_failure, verdict
        assert verifier.verify(PROBE, PROBE_REF).correct
        assert zygote not in box._zygotes.idle()


def test_each_run_is_in_a_cgroup_of_its_own() -> None:
    box = _box("bwrap")
    if box.cgroups == "off":
        box.close()
        pytest.skip("per-run cgroups are off")
    program = "def where():\n    return open('/proc/self/cgroup').read()\n"
    ref = {"test": "def check(candidate):\n    assert 'rk-local-' in candidate()\n", "entry_point": "where"}
    with box, rk.get_verifier("code", sandbox=box) as verifier:
        verdict = verifier.verify(program, ref)
    if (
        not verdict.correct
        and os.path.isdir("/sys/fs/cgroup/memory")
        and not os.access("/sys/fs/cgroup/memory", os.W_OK)
    ):
        pytest.skip("no writable cgroup hierarchy here")
    assert verdict.correct, verdict


PROGRAMS = {
    "good": "def add(a, b):\n    return a + b\n",
    "wrong": "def add(a, b):\n    return a - b\n",
    "raises": "def add(a, b):\n    raise ValueError('no')\n",
    "exits at load": "import sys\nsys.exit(3)\n",
    "compile error": "def add(a, b)\n    return a + b\n",
    "loops": "def add(a, b):\n    while a == 2:\n        pass\n    return a + b\n",
    "memory": "def add(a, b):\n    return len(bytearray(1 << 40)) and a + b\n",
    "os._exit in a call": "import os\ndef add(a, b):\n    if a == 2:\n        os._exit(0)\n    return a + b\n",
    "threads and a subprocess": (
        "import subprocess, threading\n"
        "def add(a, b):\n"
        "    out = []\n"
        "    t = threading.Thread(target=lambda: out.append(a + b))\n"
        "    t.start(); t.join()\n"
        "    return int(subprocess.run(['python3', '-c', f'print({out[0]})'], capture_output=True).stdout)\n"
    ),
    "fork": (
        "import os\n"
        "def add(a, b):\n"
        "    r, w = os.pipe()\n"
        "    pid = os.fork()\n"
        "    if pid == 0:\n"
        "        os.write(w, str(a + b).encode())\n"
        "        os._exit(0)\n"
        "    os.close(w)\n"
        "    os.waitpid(pid, 0)\n"
        "    return int(os.read(r, 100))\n"
    ),
    "reads stdin": "import sys\nDATA = sys.stdin.read()\ndef add(a, b):\n    return a + b + len(DATA)\n",
    # stdin, stdout, stderr, its two pipes to the supervisor and the listing's own: nothing of the zygote's
    "holds only its own fds": (
        "import os\nN = len(os.listdir('/proc/self/fd'))\ndef add(a, b):\n    return a + b if N == 6 else -N\n"
    ),
}
ADD_REF = "assert add(1, 2) == 3\nassert add(2, 2) == 4\nassert add(-1, 1) == 0\n"
IO_PROGRAMS = {
    "io good": "print(sum(map(int, input().split())))\n",
    "io wrong": "print(0)\n",
    "io raises": "raise SystemExit(2)\n",
}
IO_REF = {"inputs": ["1 2\n", "3 4\n"], "outputs": ["3\n", "7\n"]}


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_same_verdicts_with_and_without_the_zygote(isolation: str) -> None:
    names = [*PROGRAMS, *IO_PROGRAMS]
    programs = [*PROGRAMS.values(), *IO_PROGRAMS.values()]
    references = [ADD_REF] * len(PROGRAMS) + [IO_REF] * len(IO_PROGRAMS)
    seen = {}
    for zygote in (True, False):
        require(os.geteuid() == 0, "the warm zygote needs root")
        options = {"isolation": isolation, "zygote": zygote}
        with rk.get_verifier("code", sandbox_options=options, wall_time=4, call_timeout=1.0) as verifier:
            assert verifier.sandbox.zygote is zygote
            verdicts = verifier.verify_batch(programs, references)
        seen[zygote] = {n: (v.status, v.score, v.correct) for n, v in zip(names, verdicts, strict=False)}
    assert seen[True] == seen[False]
    assert seen[True]["good"] == ("ok", 1.0, True) and seen[True]["io good"] == ("ok", 1.0, True)
    assert seen[True]["threads and a subprocess"][2] and seen[True]["fork"][2]
    assert seen[True]["holds only its own fds"][2]
    assert seen[True]["os._exit in a call"][1] == 2 / 3  # the restart after the exit (an exec) judged the rest


def test_zygote_false_and_bad_values() -> None:
    with LocalSandbox(zygote=False) as box:
        assert box.zygote is False and box.zygote_pids() == set()
    with pytest.raises(rk.SandboxError, match="zygote must be"):
        LocalSandbox(zygote="sometimes")
    with pytest.warns(RuntimeWarning), pytest.raises(rk.SandboxError, match="zygote=true needs root"):
        LocalSandbox(isolation="rlimits", zygote=True, warm=warm_program())
    with pytest.warns(RuntimeWarning):
        box = LocalSandbox(isolation="rlimits", zygote="auto", warm=warm_program())
        assert box.zygote is False  # no namespaces, no zygote
    with LocalSandbox(warm=warm_program()) as box:  # the default, "auto": on where supported (docs/sandbox-local.md)
        assert box.zygote is (os.geteuid() == 0 and box.isolation in ("bwrap", "unshare"))


def test_without_a_warm_program_nothing_is_kept_warm() -> None:
    with pytest.raises(rk.SandboxError, match="zygote=true needs warm="):
        LocalSandbox(zygote=True)
    with LocalSandbox() as box:  # "auto" without a warm program: every run fork-exec'd, harness runs included
        assert box.zygote is False and box.zygote_pids() == set()
        with rk.get_verifier("code", sandbox=box, wall_time=5) as verifier:
            assert verifier.verify(PROGRAMS["good"], ADD_REF).correct
        assert box.zygote_pids() == set()


def test_the_profile_has_a_fork_stage() -> None:
    with _box("bwrap") as box, rk.get_verifier("code", sandbox=box) as verifier:
        verifier.verify(PROGRAMS["good"], ADD_REF)
        with profiling.collect() as profile:
            assert verifier.verify(PROGRAMS["good"], ADD_REF).correct
    stages = {name: calls for name, calls, _, _ in profile.rows()}
    fork = [name for name in stages if name.startswith("code: fork")]
    assert fork and stages[fork[0]] == 1, profile.render()


def test_the_zygote_preloads_exactly_the_harness_the_code_verifier_ships():
    from rewardkit.verifiers.code_tests import job

    warm = job.warm_program()
    assert warm.command == job.COMMAND
    assert dict(warm.files) == job._harness_sources()  # same names, same bytes
    prepared = job.prepare_job("def f():\n    return 1\n", TAMPER_REF, rk.Limits())
    assert warm.serves(prepared.command, prepared.files)
    assert not warm.serves(prepared.command, {**prepared.files, "code_runner.py": b"pass\n"})
    assert not warm.serves(["python3", "code_supervisor.py"], prepared.files)
    with rk.get_verifier("code", sandbox="local") as verifier:  # by name: the verifier passes its warm program
        assert verifier.sandbox.warm == warm
