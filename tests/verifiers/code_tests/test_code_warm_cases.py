"""Stdin/stdout cases forked from one warm process (harness/code_case_runner.py): each case starts from the
same fresh state, ends as ``python3 program.py`` would, and is judged as a new interpreter per case judges it."""

from __future__ import annotations

import os
import warnings

import pytest

import rewardkit as rk
from rk_testing import docker_problem, require

N = 12
DOUBLING = {"inputs": [f"{i}\n" for i in range(N)], "outputs": [f"{2 * i}\n" for i in range(N)]}
PROGRAMS = {  # name -> (program, expected score on DOUBLING)
    "plain": ("print(int(input()) * 2)", 1.0),
    "state_never_carries_over": (
        "import builtins, math, sys\n"
        "n = int(input())\n"
        "if hasattr(builtins, 'seen') or hasattr(math, 'seen') or hasattr(sys, 'seen'): print(-1)\n"
        "else:\n    builtins.seen = math.seen = sys.seen = True\n    print(n * 2)\n",
        1.0,
    ),
    "exit_status_counts": ("import sys\nn = int(input())\nprint(n * 2)\nsys.exit(3 if n == 4 else 0)", (N - 1) / N),
    "uncaught_exception": ("n = int(input())\nassert n != 7\nprint(n * 2)", (N - 1) / N),
    "exit_with_a_message": ("import sys\nn = int(input())\nprint(n * 2)\nif n == 2: sys.exit('bye')", (N - 1) / N),
    "threads_finish_before_exit": (
        "import threading\nn = int(input())\nthreading.Thread(target=print, args=(n * 2,)).start()",
        1.0,
    ),
    "atexit_runs": ("import atexit\nn = int(input())\natexit.register(print, n * 2)", 1.0),
    "main_guard": ("if __name__ == '__main__':\n    print(int(input()) * 2)", 1.0),
    "buffered_output_is_flushed": ("import sys\nsys.stdout.write(str(int(sys.stdin.buffer.read()) * 2))", 1.0),
    "kills_the_warm_process": (
        "import os\nn = int(input())\nprint(n * 2, flush=True)\nif n == 3: os.kill(os.getppid(), 9)",
        1.0,
    ),
    "leaves_a_daemon": (
        "import os, time\nn = int(input())\nif os.fork() == 0:\n    os.setsid()\n    os.close(1)\n    time.sleep(30)\n"
        "    os._exit(0)\nprint(n * 2)",
        1.0,
    ),
}
SHARES_ITS_PARENT = "import os, sys\nn = int(input())\nprint(n * 2)\nsys.stderr.write(f'PARENT {os.getppid()}\\n')"
PATHS = [("bwrap", True), ("unshare", True), ("bwrap", False), ("unshare", False)]


def _local(isolation: str, zygote: bool):  # type: ignore[no-untyped-def]
    require(os.geteuid() == 0 or not zygote, "the warm zygote needs root")
    return rk.get_verifier(
        "code", sandbox="local", sandbox_options={"isolation": isolation, "zygote": zygote}, wall_time=20, workers=2
    )


def _judge_all(verifier) -> dict[str, float]:  # type: ignore[no-untyped-def]
    names = sorted(PROGRAMS)
    verdicts = verifier.verify_batch([PROGRAMS[n][0] for n in names], [DOUBLING] * len(names))
    return {name: verdict.score for name, verdict in zip(names, verdicts, strict=True)}


@pytest.mark.parametrize(
    ("isolation", "zygote"), PATHS, ids=[f"{i}-{'zygote' if z else 'fork-exec'}" for i, z in PATHS]
)
def test_warm_cases_judge_as_a_new_interpreter_per_case_does(isolation: str, zygote: bool) -> None:
    with _local(isolation, zygote) as verifier:
        scores = _judge_all(verifier)
    assert scores == pytest.approx({name: expected for name, (_, expected) in PROGRAMS.items()}), scores


# Python keeps a carriage return on its stdin (no newline translation on POSIX): len("ab\r") is 3.
CRLF = ("print(len(input()))", {"inputs": ["ab\r\n", "x\n"], "outputs": ["3\n", "1\n"]})


def test_the_same_verdicts_as_a_new_interpreter_per_case() -> None:
    """Without namespaces (isolation='rlimits') every case is a new interpreter: the reference behaviour."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        plain = rk.get_verifier("code", sandbox="local", sandbox_options={"isolation": "rlimits"}, wall_time=20)
    with plain, _local("bwrap", os.geteuid() == 0) as warm:
        warm_scores, plain_scores = _judge_all(warm), _judge_all(plain)
        # there a program's parent is the supervisor itself, which that program kills: not the same program
        del warm_scores["kills_the_warm_process"], plain_scores["kills_the_warm_process"]
        assert warm_scores == plain_scores
        assert warm.verify(*CRLF).score == plain.verify(*CRLF).score == 1.0


def test_cases_are_forks_of_one_warm_process() -> None:
    require(os.geteuid() == 0, "the warm zygote needs root")
    with _local("bwrap", True) as verifier:
        verdict = verifier.verify(SHARES_ITS_PARENT, DOUBLING)
    parents = {line for line in verdict.details["stderr_tail"].splitlines() if line.startswith("PARENT")}
    assert verdict.score == 1.0 and len(parents) == 1 and parents != {"PARENT 1"}, verdict


@pytest.mark.docker
@pytest.mark.parametrize("zygote", [True, False], ids=["zygote", "exec"])
def test_warm_cases_on_docker(zygote: bool) -> None:
    problem = docker_problem()
    require(problem is None, str(problem))
    options = {"pool_size": 1, "zygote": zygote}
    with rk.get_verifier("code", sandbox="docker", sandbox_options=options, wall_time=20, workers=2) as verifier:
        scores = _judge_all(verifier)
    assert scores == pytest.approx({name: expected for name, (_, expected) in PROGRAMS.items()}), scores
