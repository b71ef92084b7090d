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

What a backend must do for it is :meth:`rewardkit.sandbox.base.Sandbox.run`'s contract; :func:`warm_program`
is what a backend may keep warm for it (the verifier passes it as the sandbox's ``warm``).
"""

from __future__ import annotations

import functools
import json
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from rewardkit.sandbox.base import Limits, RunResult, WarmProgram
from rewardkit.verifiers.code_tests.ast_guard import AST_LOCK
from rewardkit.verifiers.code_tests.formats import InvalidReference as InvalidReference  # re-exported
from rewardkit.verifiers.code_tests.formats import resolve_reference, with_prelude
from rewardkit.verifiers.code_tests.formats.preludes import needed_prelude
from rewardkit.verifiers.code_tests.formats.pytest_tests import instrument_pytest
from rewardkit.verifiers.code_tests.instrument import instrument
from rewardkit.verifiers.verdict import Status, Verdict

_AST_LOCK = AST_LOCK  # serialises the host's AST work (see ast_guard)

RESULT_TAG = "RKH1"
HARNESS_FILES = (
    "code_supervisor.py",
    "code_runner.py",
    "code_wire.py",
    "code_procs.py",
    "code_io_cases.py",
    "code_recorder.py",
    "code_invariants.py",
    "code_case_runner.py",
)
COMMAND = ("python3", "-I", "-S", "-B", "code_supervisor.py")
STDERR_TAIL = 2000


@dataclass(frozen=True)
class HarnessJob:
    command: tuple[str, ...]
    files: Mapping[str, bytes]
    stdin: bytes
    limits: Limits
    nonce: str
    tests_total: int
    partial_credit: bool = True
    notes: Mapping[str, Any] = field(default_factory=dict)  # how the reference was read, for the verdict


def _harness_sources() -> dict[str, bytes]:
    package = resources.files("rewardkit.verifiers.code_tests.harness")
    return {name: package.joinpath(name).read_bytes() for name in HARNESS_FILES}


_SOURCES: dict[str, bytes] | None = None


@functools.cache
def warm_program() -> WarmProgram:
    """What a backend may keep warm for this harness: ``COMMAND`` over the ``HARNESS_FILES`` (every job runs it),
    and the native languages' build and judge runs (``more``: a backend that keeps only the first runs them cold)."""
    from rewardkit.verifiers.code_tests.native.build import warm_build
    from rewardkit.verifiers.code_tests.native.judge_job import warm_judge

    return WarmProgram(COMMAND, _harness_sources(), more=(warm_judge(), warm_build()))


def valid_tolerance(value: Any) -> bool:
    """``"auto"`` (1e-6 where the expected token is a decimal), a number >= 0 (every number), or None (exact)."""
    if value is None or value == "auto":
        return True
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0


def normalize_reference(
    reference: Any,
    tolerance: float | str | None = "auto",
    context: Mapping[str, Any] | None = None,
    *,
    program: str = "",
    public_only: bool = False,
) -> dict[str, Any]:
    """The reference as a harness test spec; raises InvalidReference naming what is wrong.

    A string that holds a JSON object or list (as dataset columns often do) is read as that object; the
    dataset layouts of :mod:`rewardkit.verifiers.code_tests.formats` are read with the row's ``context``.
    """
    return resolve_reference(reference, context, program=program, tolerance=tolerance, public_only=public_only).spec


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
    context: Mapping[str, Any] | None = None,
    public_only: bool = False,
) -> HarnessJob:
    """The command, files and stdin that judge ``program`` against ``reference`` in any sandbox.

    ``context`` holds the row's other columns (``entry_point``, ``prompt``, ``private_tests``, ...: see
    :mod:`rewardkit.verifiers.code_tests.formats`); ``public_only`` leaves a row's other test sets out.
    Without ``partial_credit`` the score is 1 or 0 and the harness stops at the first failing test."""
    global _SOURCES
    if _SOURCES is None:
        _SOURCES = _harness_sources()
    resolved = resolve_reference(reference, context, program=program, tolerance=tolerance, public_only=public_only)
    spec = dict(resolved.spec)
    notes: dict[str, Any] = {"format": resolved.form}
    if resolved.sets:
        notes["test_sets"] = dict(resolved.sets)
    if spec["mode"] == "function":
        labels = spec.pop("labels", None)
        instrumented = _instrumented(spec.pop("test"), spec["entry_point"], spec.pop("style", None))
        spec["statements"], spec["names"] = instrumented["statements"], instrumented["names"]
        spec["sites"] = instrumented["sites"]
        if labels:
            spec["sites"] = [{**site, "source": label} for site, label in zip(spec["sites"], labels, strict=False)]
        imports = sorted({*spec.get("imports", ()), *instrumented.get("imports", ())})
        if imports:
            spec["imports"] = imports
        if instrumented.get("skipped"):
            notes["skipped"] = instrumented["skipped"]
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
    source = resolved.prefix + program
    source = with_prelude(source, needed_prelude(source, resolved.prelude) if resolved.prelude else "")
    files = {**_SOURCES, "program.py": source.encode("utf-8", "surrogatepass")}
    return HarnessJob(COMMAND, files, json.dumps(job).encode(), limits, nonce, total, partial_credit, notes)


CACHED_TEST_CHARS = 1 << 20  # larger tests (call-based rows carrying their data) are instrumented each time


def _instrumented(test: str, entry_point: str | None, style: str | None = None) -> dict[str, Any]:
    """The instrumented tests (shared between jobs: only ever serialised, never changed)."""
    if len(test) > CACHED_TEST_CHARS:
        return _instrument(test, entry_point, style)
    return _instrument_cached(test, entry_point, style)


def _instrument(test: str, entry_point: str | None, style: str | None) -> dict[str, Any]:
    with _AST_LOCK:
        return instrument_pytest(test) if style == "pytest" else instrument(test, entry_point)


_instrument_cached = functools.lru_cache(maxsize=512)(_instrument)


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
        **job.notes,
        "stderr_tail": result.stderr[-STDERR_TAIL:].decode("utf-8", "replace"),
        "duration": round(result.duration, 4),
    }
    if result.infra_error:
        return Verdict.fail(
            Status.SANDBOX_ERROR,
            extracted,
            error=f"sandbox failure (not the model's fault): {result.infra_error}",
            **details,
        )
    if result.output_truncated:
        return Verdict.fail(Status.OUTPUT_LIMIT, extracted, error="the program's output went over the limit", **details)
    report = _harness_report(job, result.stdout)
    if report is None:
        if result.timed_out:
            return Verdict.fail(Status.TIMEOUT, extracted, error="killed at the wall-clock limit", **details)
        if result.memory_exceeded:
            return Verdict.fail(Status.MEMORY_LIMIT, extracted, error="the run ran out of memory", **details)
        return Verdict.fail(
            Status.RUNTIME_ERROR,
            extracted,
            error=f"the harness did not report (exit {result.exit_code}, "
            f"signal {result.signal}): the program broke its run",
            **details,
        )
    if report.get("harness_error"):
        return Verdict.fail(
            Status.SANDBOX_ERROR,
            extracted,
            error=f"harness failure (not the model's fault): {report['harness_error']}",
            **details,
        )
    if report.get("refused"):  # an invariant broke after candidate code ran: the verdict is worth nothing
        return Verdict.fail(
            Status.RUNTIME_ERROR,
            extracted,
            error=f"the supervisor refused to judge: {report['refused']}",
            refused=report["refused"],
            **details,
        )
    tests = report.get("tests") or []
    events = report.get("events") or {}
    passed = sum(1 for t in tests if t.get("outcome") == "pass")
    total = max(len(tests), job.tests_total, 1)
    details.update(tests=tests, passed=passed, total=total, events=events, harness_seconds=report.get("seconds"))
    details["invariants"] = report.get("invariants") or []
    if report.get("stopped"):
        details["stopped"] = report["stopped"]
    if report.get("errors"):
        details["errors"] = report["errors"]
    load = report.get("load") or {}
    if load.get("status") == Status.COMPILE_ERROR:
        return Verdict.fail(Status.COMPILE_ERROR, extracted, error=load.get("error"), **details)
    if load.get("status") not in (None, Status.OK):
        details["error"] = load.get("error")
    if report.get("aborted"):
        details["error"] = f"the run was aborted: {report['aborted']}"
    correct = passed == total and not report.get("deadline_hit") and not report.get("aborted")
    if correct:
        status = Status.OK
    elif report.get("deadline_hit") or events.get("timeouts"):
        status = Status.TIMEOUT
    elif events.get("memory_errors") or result.memory_exceeded:
        status = Status.MEMORY_LIMIT
    elif (
        report.get("aborted")
        or load.get("status") not in (None, Status.OK)
        or events.get("crashes")
        or (events.get("exceptions") or (report.get("errors") and passed == 0))
    ):
        status = Status.RUNTIME_ERROR
    else:
        status = Status.OK
    score = passed / total if job.partial_credit else float(correct)
    return Verdict(score, correct, status, extracted, details)
