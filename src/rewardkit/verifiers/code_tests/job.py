"""The code harness, host side: turn (program, reference, limits) into a sandbox job, and its result into a Verdict.

Shared by every sandbox backend. A backend only has to run the job::

    job = prepare_job(program, reference, limits)          # HarnessJob
    result = sandbox.run(job.command, job.files, stdin=job.stdin, limits=job.limits)
    verdict = parse_result(job, result)                     # Verdict

``job.command`` is ``["python3", "-I", "-S", "-B", "code_supervisor.py"]``, to run in the scratch dir
that holds ``job.files`` (the supervisor and its modules, ``HARNESS_FILES``, and the candidate's
``program.py``; all plain python3.8+ stdlib, nothing of rewardkit). The tests and a per-job nonce travel on
stdin only, so the candidate never sees them. The verdict comes from the one stdout line ``RKH1 <nonce> <json>``;
the program's own exit status and output decide nothing. See ``code_supervisor.py`` for the design.

A backend should: give the job at least ``job.limits.wall_time`` before killing it (the supervisor
reports a little before that), keep the candidate from holding the supervisor's stdout (true when it
only inherits the fds the supervisor gives it), run the supervisor as a non-root user with no
capabilities (it makes itself non-dumpable), and report its own failures in ``RunResult.infra_error``.
"""

from __future__ import annotations

import ast
import functools
import json
import secrets
import threading
from collections.abc import Mapping
from dataclasses import dataclass, replace
from importlib import resources
from typing import Any

from rewardkit.sandbox.base import Limits, RunResult
from rewardkit.verifiers.code_tests.instrument import instrument
from rewardkit.verifiers.verdict import (
    COMPILE_ERROR,
    MEMORY_LIMIT,
    OK,
    OUTPUT_LIMIT,
    RUNTIME_ERROR,
    SANDBOX_ERROR,
    TIMEOUT,
    Verdict,
)

# Some CPython releases (3.11.7 among them, gh-106905) keep the AST converters' recursion depth in
# interpreter-wide state, so ast.parse on several threads at once can fail with "AST constructor recursion
# depth mismatch". verify_batch prepares jobs on threads: serialise the host's AST work.
_AST_LOCK = threading.Lock()

RESULT_TAG = "RKH1"
HARNESS_FILES = (
    "code_supervisor.py",
    "code_runner.py",
    "code_wire.py",
    "code_procs.py",
    "code_io_cases.py",
    "code_recorder.py",
)
COMMAND = ("python3", "-I", "-S", "-B", "code_supervisor.py")
STDERR_TAIL = 2000


class InvalidReference(ValueError):
    """The reference is not one of the three forms (a bug in the dataset, not the model's fault)."""


@dataclass(frozen=True)
class HarnessJob:
    command: tuple[str, ...]
    files: Mapping[str, bytes]
    stdin: bytes
    limits: Limits
    nonce: str
    tests_total: int
    partial_credit: bool = True


def _harness_sources() -> dict[str, bytes]:
    package = resources.files("rewardkit.verifiers.code_tests.harness")
    return {name: package.joinpath(name).read_bytes() for name in HARNESS_FILES}


_SOURCES: dict[str, bytes] | None = None


def valid_tolerance(value: Any) -> bool:
    """``"auto"`` (1e-6 where the expected token is a decimal), a number >= 0 (every number), or None (exact)."""
    if value is None or value == "auto":
        return True
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0


def normalize_reference(reference: Any, tolerance: float | str | None = "auto") -> dict[str, Any]:
    """The reference as a harness test spec; raises InvalidReference naming what is wrong.

    A string that holds a JSON object (as dataset columns often do) is read as that object.
    """
    if isinstance(reference, str) and reference.lstrip().startswith("{"):
        try:
            decoded = json.loads(reference)
        except ValueError:
            decoded = None
        if isinstance(decoded, dict):
            reference = decoded
    if isinstance(reference, str):
        if not reference.strip():
            raise InvalidReference("empty test code")
        _check_test_code(reference, None)
        return {"mode": "function", "test": reference, "entry_point": None}
    if isinstance(reference, Mapping):
        if "test" in reference:
            test, entry = reference["test"], reference.get("entry_point")
            if not isinstance(test, str) or not test.strip():
                raise InvalidReference("reference 'test' must be a non-empty string of Python code")
            if entry is not None and (not isinstance(entry, str) or not entry.isidentifier()):
                raise InvalidReference(f"reference 'entry_point' must be a function name, got {entry!r}")
            _check_test_code(test, entry)
            return {"mode": "function", "test": test, "entry_point": entry}
        if "inputs" in reference and "outputs" in reference:
            inputs, outputs = reference["inputs"], reference["outputs"]
            if not isinstance(inputs, (list, tuple)) or not isinstance(outputs, (list, tuple)):
                raise InvalidReference("reference 'inputs' and 'outputs' must be lists of strings")
            if len(inputs) != len(outputs) or not inputs:
                raise InvalidReference(
                    "reference needs as many 'outputs' as 'inputs' (at least one): "
                    f"got {len(inputs)} and {len(outputs)}"
                )
            tol = reference.get("tolerance", tolerance)
            if not valid_tolerance(tol):
                raise InvalidReference(f"tolerance must be 'auto', a number >= 0 or null, got {tol!r}")
            return {
                "mode": "io",
                "inputs": [_text(x) for x in inputs],
                "outputs": [_text(x) for x in outputs],
                "tolerance": tol,
            }
        raise InvalidReference(
            f"reference dict needs 'test' (+ 'entry_point') or 'inputs' and 'outputs'; got keys {sorted(reference)}"
        )
    raise InvalidReference(f"reference must be test code (str) or a dict, got {type(reference).__name__}")


@functools.lru_cache(maxsize=512)  # a GRPO group judges many programs against the same tests
def _check_test_code(test: str, entry_point: str | None) -> None:
    try:
        with _AST_LOCK:
            tree = ast.parse(test, "<tests>")
    except (SyntaxError, ValueError) as exc:
        raise InvalidReference(f"the test code does not compile: {exc}") from None
    if entry_point is not None:
        if not any(isinstance(n, ast.FunctionDef) and n.name == "check" for n in tree.body):
            raise InvalidReference("a reference with 'entry_point' needs test code that defines check(candidate)")
    elif not any(isinstance(n, ast.Assert) and not isinstance(n.test, ast.Constant) for n in ast.walk(tree)):
        raise InvalidReference("the test code has no assert statement to count as a test")


def _text(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return "\n".join(str(v) for v in value) + "\n"
    return str(value)


def harness_budget(wall_time: float) -> float:
    """Seconds the supervisor gets, so that it reports before the sandbox's wall clock kills it."""
    return max(0.3, wall_time - min(1.0, 0.15 * wall_time) - 0.1)


def prepare_job(
    program: str,
    reference: Any,
    limits: Limits,
    *,
    call_timeout: float | None = None,
    tolerance: float | str | None = "auto",
    partial_credit: bool = True,
) -> HarnessJob:
    """The command, files and stdin that judge ``program`` against ``reference`` in any sandbox.

    Without ``partial_credit`` the score is 1 or 0 and the harness stops at the first failing test."""
    global _SOURCES
    if _SOURCES is None:
        _SOURCES = _harness_sources()
    spec = normalize_reference(reference, tolerance)
    if spec["mode"] == "function":
        spec.update(_instrumented(spec["test"], spec["entry_point"]))
    nonce = secrets.token_hex(16)
    job = {
        **spec,
        "nonce": nonce,
        "budget": harness_budget(limits.wall_time),
        "call_timeout": call_timeout,
        "max_output_bytes": limits.max_output_bytes,
        "stop_at_failure": not partial_credit,
    }
    total = len(spec["inputs"]) if spec["mode"] == "io" else 0
    files = {**_SOURCES, "program.py": program.encode("utf-8", "surrogatepass")}
    return HarnessJob(COMMAND, files, json.dumps(job).encode(), limits, nonce, total, partial_credit)


@functools.lru_cache(maxsize=512)
def _instrumented(test: str, entry_point: str | None) -> dict[str, Any]:
    """The instrumented tests (shared between jobs: only ever serialised, never changed)."""
    with _AST_LOCK:
        return instrument(test, entry_point)


def _harness_report(job: HarnessJob, stdout: bytes) -> dict[str, Any] | None:
    prefix = f"{RESULT_TAG} {job.nonce} ".encode()
    found = None
    for line in stdout.splitlines():
        if line.startswith(prefix):
            if found is not None:
                return None  # two reports: something forged one; trust neither
            found = line[len(prefix) :]
    if found is None:
        return None
    try:
        report = json.loads(found)
    except ValueError:
        return None
    return report if isinstance(report, dict) else None


def parse_result(job: HarnessJob, result: RunResult, extracted: str | None = None) -> Verdict:
    """The verdict of one run: from the supervisor's report, never from the program's exit status."""
    details: dict[str, Any] = {
        "stderr_tail": result.stderr[-STDERR_TAIL:].decode("utf-8", "replace"),
        "duration": round(result.duration, 4),
    }
    if result.infra_error:
        return Verdict.fail(
            SANDBOX_ERROR, extracted, error=f"sandbox failure (not the model's fault): {result.infra_error}", **details
        )
    if result.output_truncated:
        return Verdict.fail(OUTPUT_LIMIT, extracted, error="the program's output went over the limit", **details)
    report = _harness_report(job, result.stdout)
    if report is None:
        if result.timed_out:
            return Verdict.fail(TIMEOUT, extracted, error="killed at the wall-clock limit", **details)
        if result.memory_exceeded:
            return Verdict.fail(MEMORY_LIMIT, extracted, error="the run ran out of memory", **details)
        return Verdict.fail(
            RUNTIME_ERROR,
            extracted,
            error=f"the harness did not report (exit {result.exit_code}, "
            f"signal {result.signal}): the program broke its run",
            **details,
        )
    if report.get("harness_error"):
        return Verdict.fail(
            SANDBOX_ERROR,
            extracted,
            error=f"harness failure (not the model's fault): {report['harness_error']}",
            **details,
        )
    tests = report.get("tests") or []
    events = report.get("events") or {}
    passed = sum(1 for t in tests if t.get("outcome") == "pass")
    total = max(len(tests), job.tests_total, 1)
    details.update(tests=tests, passed=passed, total=total, events=events, harness_seconds=report.get("seconds"))
    if report.get("stopped"):
        details["stopped"] = report["stopped"]
    if report.get("errors"):
        details["errors"] = report["errors"]
    load = report.get("load") or {}
    if load.get("status") == COMPILE_ERROR:
        return Verdict.fail(COMPILE_ERROR, extracted, error=load.get("error"), **details)
    if load.get("status") not in (None, OK):
        details["error"] = load.get("error")
    if report.get("aborted"):
        details["error"] = f"the run was aborted: {report['aborted']}"
    correct = passed == total and not report.get("deadline_hit") and not report.get("aborted")
    if correct:
        status = OK
    elif report.get("deadline_hit") or events.get("timeouts"):
        status = TIMEOUT
    elif events.get("memory_errors") or result.memory_exceeded:
        status = MEMORY_LIMIT
    elif (
        report.get("aborted")
        or load.get("status") not in (None, OK)
        or events.get("crashes")
        or (events.get("exceptions") or (report.get("errors") and passed == 0))
    ):
        status = RUNTIME_ERROR
    else:
        status = OK
    score = passed / total if job.partial_credit else float(correct)
    return Verdict(score, correct, status, extracted, details)


def with_limits(job: HarnessJob, limits: Limits) -> HarnessJob:
    return replace(job, limits=limits)
