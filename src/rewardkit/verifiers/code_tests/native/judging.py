"""A program in any registered language judged on a problem: build (or a cache hit), one judge run, a Verdict.

Per-test statuses (AC, WA, PA, TLE, MLE, RE, OLE, SKIP; CE when the build failed) are in ``details["tests"]``,
their counts in ``details["statuses"]``. Score: with subtasks, the points of each subtask times the lowest
score of its tests, over all points; without, the fraction of tests passed (``partial_credit`` False: 1.0 only
when all pass). The verdict's status is the first of timeout, memory_limit, runtime_error, output_limit that a
test hit, else ``ok`` (a wrong answer is judged to the end: ``ok`` with its score).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rewardkit._errors import SandboxError
from rewardkit.sandbox.base import Sandbox
from rewardkit.sandbox.languages import Language
from rewardkit.sandbox.lookup import get_language
from rewardkit.verifiers.code_tests.native.build import BuildCache, BuildFailure, Built, build
from rewardkit.verifiers.code_tests.native.judge_job import prepare_judge, read_report
from rewardkit.verifiers.code_tests.native.problem import Checker, Problem
from rewardkit.verifiers.verdict import Status, Verdict

CASE_STATUS = {
    "TLE": Status.TIMEOUT,
    "MLE": Status.MEMORY_LIMIT,
    "RE": Status.RUNTIME_ERROR,
    "OLE": Status.OUTPUT_LIMIT,
}
STATUS_ORDER = ("TLE", "MLE", "RE", "OLE")
CHECKER_LANGUAGE = "cpp17"


def judge_program(
    sandbox: Sandbox,
    language: Language,
    program: str,
    problem: Problem,
    cache: BuildCache,
    settings: Mapping[str, Any],
    backend: str = "",
) -> Verdict:
    """Build ``program`` in ``language`` and judge it on ``problem`` (see the module docstring)."""
    language = language.for_program(program)
    base = {"language": language.name, "backend": backend, "layout": problem.layout}
    graders = bool(problem.program_path) and language.family in ("c", "cpp")
    built = build(
        sandbox,
        language,
        program,
        cache,
        extra=dict(problem.sources) if graders else None,
        program_path=problem.program_path if graders else None,
    )
    if isinstance(built, BuildFailure):
        if built.infrastructure:
            return Verdict.fail(Status.SANDBOX_ERROR, program, error=f"not the model's fault: {built.message}", **base)
        return Verdict(
            0.0,
            False,
            Status.COMPILE_ERROR,
            program,
            {**base, "compiler": built.message, "tests_total": len(problem.tests)},
        )
    checker = None
    if problem.checker is not None:
        checker_built = _build_checker(sandbox, problem.checker, cache)
        if isinstance(checker_built, Verdict):
            return Verdict(checker_built.score, False, checker_built.status, program, {**base, **checker_built.details})
        checker = (problem.checker, checker_built)
    groups = [list(s.tests) for s in problem.subtasks] or None
    stop = "group" if problem.subtasks else ("never" if settings.get("partial_credit", True) else "first")
    job = prepare_judge(language, built.artifact, problem, settings, checker, groups, stop)
    try:
        result = sandbox.run(job.command, job.files, stdin=job.stdin, limits=job.limits)
    except SandboxError as exc:
        return Verdict.fail(
            Status.SANDBOX_ERROR, program, error=f"sandbox failure (not the model's fault): {exc}", **base
        )
    details: dict[str, Any] = {**base, "compile_cached": built.cached}
    if result.infra_error:
        return Verdict.fail(
            Status.SANDBOX_ERROR, program, error=f"not the model's fault: {result.infra_error}", **details
        )
    report = read_report(job, result)
    if report is None:
        if result.memory_exceeded:
            return Verdict(0.0, False, Status.MEMORY_LIMIT, program, {**details, "error": "the run ran out of memory"})
        if result.timed_out:
            return Verdict(0.0, False, Status.TIMEOUT, program, {**details, "error": "the run ran past its time"})
        tail = result.stderr[-600:].decode("utf-8", "replace")
        return Verdict.fail(Status.SANDBOX_ERROR, program, error=f"the judge gave no report: {tail}", **details)
    if report.get("harness_error"):  # before any test ran (an invariant of the run did not hold)
        return Verdict.fail(
            Status.SANDBOX_ERROR, program, error=f"not the model's fault: {report['harness_error']}", **details
        )
    if report.get("refused"):  # an invariant broke after tests ran: the verdict is worth nothing
        error = f"the judge refused to judge: {report['refused']}"
        return Verdict.fail(Status.RUNTIME_ERROR, program, error=error, refused=report["refused"], **details)
    details["invariants"] = list(report.get("invariants") or [])
    return _verdict(report, problem, program, details, bool(settings.get("partial_credit", True)))


def _build_checker(sandbox: Sandbox, checker: Checker, cache: BuildCache) -> bytes | Verdict:
    if checker.kind == "python":
        return checker.source.encode("utf-8")
    language = get_language(CHECKER_LANGUAGE)
    built = build(sandbox, language, checker.source, cache, extra=dict(checker.headers))
    if isinstance(built, Built):
        return built.artifact
    if built.infrastructure:
        return Verdict.fail(Status.SANDBOX_ERROR, None, error=f"the checker could not be built: {built.message}")
    missing = (
        " (it includes testlib.h: give it in grader_files or a 'testlib' column)"
        if "testlib.h" in built.message
        else ""
    )
    return Verdict.fail(
        Status.INVALID_REFERENCE, None, error=f"the dataset's checker does not compile{missing}: {built.message}"
    )


def _verdict(
    report: Mapping[str, Any], problem: Problem, program: str, details: dict[str, Any], partial_credit: bool
) -> Verdict:
    cases = list(report["cases"])[: len(problem.tests)]
    while len(cases) < len(problem.tests):
        cases.append({"status": "SKIP", "error": "not reported"})
    tests: list[dict[str, Any]] = []
    counts: dict[str, int] = {}
    for test, case in zip(problem.tests, cases, strict=True):
        status = str(case.get("status", "SKIP"))
        score = 1.0 if status == "AC" else float(case.get("score", 0.0) or 0.0) if status == "PA" else 0.0
        counts[status] = counts.get(status, 0) + 1
        row = {"name": test.name, "status": status, "score": score}
        for key in ("time", "memory", "error", "stderr"):
            if key in case:
                row[key] = case[key]
        if case.get("checker_failed"):
            row["checker_failed"] = True
        tests.append(row)
    scores = [float(row["score"]) for row in tests]
    passed = sum(1 for row in tests if row["status"] == "AC")
    correct = passed == len(tests)
    details.update(tests=tests, statuses=counts, tests_passed=passed, tests_total=len(tests))
    if report.get("budget_hit"):
        details["error"] = "the judging time budget ran out before every test ran"
    if problem.subtasks:
        subtasks = []
        earned_total = 0.0
        for subtask in problem.subtasks:
            earned = round(subtask.points * min((scores[i] for i in subtask.tests), default=0.0), 6)
            earned_total += earned
            subtasks.append({"name": subtask.name, "points": subtask.points, "earned": earned})
        total = sum(s.points for s in problem.subtasks)
        details.update(subtasks=subtasks, points=round(earned_total, 6), max_points=total)
        score = earned_total / total if total > 0 else float(correct)
    else:
        score = sum(scores) / len(scores) if partial_credit else float(correct)
    return Verdict(round(score, 6), correct, _status(counts), program, details)


def _status(counts: Mapping[str, int]) -> Status:
    for name in STATUS_ORDER:
        if counts.get(name):
            return CASE_STATUS[name]
    return Status.OK
