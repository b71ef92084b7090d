"""One sandbox run that judges a built program on every test of a problem (``harness/native_judge.py`` inside).

The job carries the tests (inputs and expected outputs: they travel on stdin, read by the judge before any
program process exists), the run argv, the per-test limits and the checker. The sandbox run's own limits are
sized from them: its address space fits a test's (the judge lowers it per test), its wall clock fits every
test at its wall limit plus the checker's, up to ``budget``.
"""

from __future__ import annotations

import functools
import json
import math
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from rewardkit.sandbox.base import Limits, RunResult, WarmProgram
from rewardkit.sandbox.languages import MIB, Language
from rewardkit.verifiers.code_tests.native.problem import Checker, Problem

RESULT_TAG = "RKN1"
JUDGE_COMMAND = ("python3", "-I", "-S", "-B", "native_judge.py")
JUDGE_FILES = ("native_judge.py",)
HARNESS_HELPERS = ("code_io_cases.py", "code_procs.py", "code_invariants.py")  # of the Python harness
CHECKER_ADDRESS_SPACE = 1024 * MIB
# How each checker kind is called, and how its verdict is read (see native_judge.read_score).
CHECKER_CALLS: dict[str, dict[str, Any]] = {
    "python": {
        "argv": ["python3", "-I", "{checker}", "{input}", "{answer}", "{output}"],
        "files": {"input": "input.txt", "answer": "correct_output.txt", "output": "solution_output.txt"},
        "verdict": "last_token",
        "interpreted": True,
    },
    "testlib": {
        "argv": ["checker", "{input}", "{output}", "{answer}"],
        "files": {"input": "input.txt", "answer": "answer.txt", "output": "output.txt"},
        "verdict": "exit_code",
    },
    "cms": {
        "argv": ["checker", "{input}", "{answer}", "{output}"],
        "files": {"input": "input.txt", "answer": "answer.txt", "output": "output.txt"},
        "verdict": "first_token",
    },
}


@dataclass(frozen=True)
class CaseLimits:
    """Per test: CPU seconds, wall seconds, peak memory and address space in bytes, output bytes."""

    time: float
    wall: float
    memory: int
    address_space: int
    output_bytes: int
    file_bytes: int


@dataclass(frozen=True)
class JudgeJob:
    command: tuple[str, ...]
    files: Mapping[str, bytes]
    stdin: bytes
    limits: Limits
    nonce: str
    case_limits: CaseLimits


@functools.cache
def _sources() -> dict[str, bytes]:
    own = resources.files("rewardkit.verifiers.code_tests.native.harness")
    helpers = resources.files("rewardkit.verifiers.code_tests.harness")
    return {
        **{name: own.joinpath(name).read_bytes() for name in JUDGE_FILES},
        **{name: helpers.joinpath(name).read_bytes() for name in HARNESS_HELPERS},
    }


def warm_judge() -> WarmProgram:
    """The judge run, as a program a backend may keep warm (``native_judge.main()`` in a zygote's fork)."""
    return WarmProgram(JUDGE_COMMAND, _sources(), entry="native_judge")


def case_limits(language: Language, problem: Problem, settings: Mapping[str, Any]) -> CaseLimits:
    base = problem.time_limit if problem.time_limit is not None else settings.get("time_limit") or language.time_limit
    time_limit = float(base) * float(settings.get("time_scale", 1.0))
    memory = problem.memory_limit or settings.get("memory_limit") or language.memory_limit
    memory = int(memory * float(settings.get("memory_scale", 1.0)))
    output = int(settings.get("max_output_bytes", 64 * MIB))
    return CaseLimits(
        time=time_limit,
        wall=time_limit * 2 + 1.0,
        memory=memory,
        address_space=memory + language.run_memory_overhead,
        output_bytes=output,
        file_bytes=max(output, 16 * MIB),
    )


def prepare_judge(
    language: Language,
    artifact: bytes,
    problem: Problem,
    settings: Mapping[str, Any],
    checker: tuple[Checker, bytes] | None = None,
    groups: Sequence[Sequence[int]] | None = None,
    stop: str = "never",
) -> JudgeJob:
    """The judge's command, files, stdin and limits. ``checker``: the checker and its built artifact."""
    limits = case_limits(language, problem, settings)
    nonce = secrets.token_hex(16)
    files: dict[str, bytes] = {**_sources(), language.artifact_name: artifact}
    job: dict[str, Any] = {
        "nonce": nonce,
        "argv": language.run_argv(limits.memory),
        "exec": language.artifact_name if language.executable else None,
        "env": dict(language.env),
        "cases": [{"input": t.input, "answer": t.answer} for t in problem.tests],
        "groups": [list(g) for g in groups] if groups else [list(range(len(problem.tests)))],
        "stop": stop,
        "limits": {
            "time": limits.time,
            "wall": limits.wall,
            "memory": limits.memory,
            "address_space": limits.address_space,
            "output_bytes": limits.output_bytes,
            "file_bytes": limits.file_bytes,
        },
        "input_mode": problem.input_mode,
        "compare": {"tolerance": problem.tolerance, "rule": dict(problem.compare or {})},
        "memory_markers": list(language.memory_markers),
    }
    checker_time = float(settings.get("checker_time", 10.0))
    if checker is not None:
        spec, built = checker
        name = "checker.py" if spec.kind == "python" else "checker"
        files[name] = built
        job["checker"] = {
            **CHECKER_CALLS[spec.kind],
            "file": name,
            "time": checker_time,
            "address_space": CHECKER_ADDRESS_SPACE,
        }
    per_test = limits.wall + (checker_time * 2 + 1 if checker is not None else 0.0)
    budget = min(float(settings.get("judge_budget", 300.0)), per_test * len(problem.tests) + 2.0)
    job["budget"] = budget
    wall = budget + limits.wall + 5.0
    data = sum(len(t.input) + len(t.answer) for t in problem.tests)
    run_limits = Limits(
        wall_time=wall,
        cpu_time=wall,
        memory_bytes=max(limits.address_space, CHECKER_ADDRESS_SPACE if checker else 0, 512 * MIB),
        max_processes=language.run_processes + 16,
        max_output_bytes=8 * MIB,
        max_file_bytes=limits.file_bytes,
        max_open_files=256,
        max_scratch_bytes=int(settings.get("max_scratch_bytes", 64 * MIB)) + 4 * len(artifact) + 3 * data,
    )
    header = json.dumps({"checker": checker is not None}).encode() + b"\n"  # what the judge forks before the job
    return JudgeJob(JUDGE_COMMAND, files, header + json.dumps(job).encode(), run_limits, nonce, limits)


def read_report(job: JudgeJob, result: RunResult) -> dict[str, Any] | None:
    """The judge's report, or None when the run gave none."""
    prefix = f"{RESULT_TAG} {job.nonce} ".encode()
    for line in result.stdout.splitlines():
        if line.startswith(prefix):
            try:
                report = json.loads(line[len(prefix) :])
            except ValueError:
                return None
            return report if isinstance(report, dict) and isinstance(report.get("cases"), list) else None
    return None


def rounded(value: float) -> float:
    return math.floor(value * 1e6 + 0.5) / 1e6
