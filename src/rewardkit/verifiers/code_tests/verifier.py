"""The "code" verifier: run the completion's program against the reference tests in a sandbox.

>>> with rk.get_verifier("code", sandbox="local", wall_time=5) as v:
...     v.verify("```python\\ndef add(a, b):\\n    return a + b\\n```", "assert add(1, 2) == 3").score
1.0

``sandbox`` is a registered sandbox name (``"local"``, ``"docker"``, ...) or a :class:`Sandbox`
instance (then the caller owns it and ``close`` leaves it open; its code-harness runs are warm only if it was
made with ``warm=job.warm_program()``, as a sandbox made by name is). The limits are keyword parameters.
The judging itself lives in :mod:`rewardkit.verifiers.code_tests.job` (host side) and
``code_supervisor.py`` (inside the sandbox); see docs/code-verifier.md.
"""

from __future__ import annotations

import os
import threading
import typing
from dataclasses import dataclass, fields
from typing import Any

from rewardkit._errors import ConfigError, SandboxError
from rewardkit.plugins.params import check_value
from rewardkit.sandbox.base import Limits, Sandbox
from rewardkit.verifiers.base import Verifier
from rewardkit.verifiers.code_tests.extract import extract_program
from rewardkit.verifiers.code_tests.job import (
    InvalidReference,
    parse_result,
    prepare_job,
    valid_tolerance,
    warm_program,
)
from rewardkit.verifiers.code_tests.native.build import BuildCache
from rewardkit.verifiers.code_tests.native.judging import judge_program
from rewardkit.verifiers.code_tests.native.problem import needs_judge, problem_from_row
from rewardkit.verifiers.code_tests.native.selection import Selection, select
from rewardkit.verifiers.text import completion_text
from rewardkit.verifiers.verdict import Status, Verdict

__all__ = ["CodeConfig", "CodeVerifier", "extract_program"]


@dataclass(frozen=True)
class CodeConfig(Limits):
    """Settings of the code verifier: the sandbox :class:`Limits` of one run, plus how tests are judged.

    Times in seconds, sizes in bytes; ``workers`` runs at once. Two limits default differently from a bare
    ``Limits``: ``cpu_time`` None means "the same as ``wall_time``", and ``max_processes`` is 16, not 64, so
    a run without a cgroup holds at most 16 x 512 MB of address space. The sandbox gets :meth:`limits`.
    """

    cpu_time: float | None = None  # type: ignore[assignment]  # None: wall_time (resolved by limits())
    max_processes: int = 16
    call_timeout: float | None = 3.0
    tolerance: float | str | None = "auto"
    partial_credit: bool = True
    public_tests_only: bool = False
    workers: int | None = None
    # Programs in other languages, and competitive-programming rows (docs/code-verifier.md, "Languages")
    language: str | None = None
    time_limit: float | None = None
    memory_limit: int | None = None
    time_scale: float = 1.0
    checker_time: float = 10.0
    judge_budget: float = 300.0
    compile_cache_bytes: int = 512 << 20
    compile_cache_dir: str | None = None

    def __post_init__(self) -> None:
        hints = typing.get_type_hints(CodeConfig)
        for f in fields(self):  # the types, by the one parameter checker; the ranges below
            check_value(f.name, getattr(self, f.name), hints[f.name], "a setting of the code verifier")
        for name in ("wall_time", "cpu_time", "call_timeout"):
            value = getattr(self, name)
            if value is not None and not value > 0:
                raise ConfigError(f"code verifier: {name} must be a positive number of seconds, got {value!r}")
        for name in (
            "memory_bytes",
            "max_processes",
            "max_output_bytes",
            "max_file_bytes",
            "max_open_files",
            "max_scratch_bytes",
        ):
            if getattr(self, name) < 1:
                raise ConfigError(f"code verifier: {name} must be a positive integer, got {getattr(self, name)!r}")
        if self.max_processes < 4:
            raise ConfigError(
                f"code verifier: max_processes must be >= 4 (the harness needs 2), got {self.max_processes}"
            )
        if not valid_tolerance(self.tolerance):
            raise ConfigError(f"code verifier: tolerance must be 'auto', a number >= 0 or None, got {self.tolerance!r}")
        if self.workers is not None and self.workers < 1:
            raise ConfigError(f"code verifier: workers must be an integer >= 1 or None, got {self.workers!r}")
        for name in ("time_limit", "time_scale", "checker_time", "judge_budget"):
            value = getattr(self, name)
            if value is not None and not value > 0:
                raise ConfigError(f"code verifier: {name} must be a positive number, got {value!r}")
        for name in ("memory_limit", "compile_cache_bytes"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ConfigError(f"code verifier: {name} must be a positive integer (bytes), got {value!r}")
        if self.language is not None:
            from rewardkit.sandbox.lookup import get_language

            get_language(self.language)  # a ConfigError listing the registered languages

    def limits(self) -> Limits:
        """The sandbox limits of one run, with ``cpu_time`` resolved."""
        values: dict[str, Any] = {f.name: getattr(self, f.name) for f in fields(Limits)}
        values["wall_time"] = float(self.wall_time)
        values["cpu_time"] = float(self.cpu_time if self.cpu_time is not None else self.wall_time)
        return Limits(**values)


class CodeVerifier(Verifier):
    """Scores a program by the fraction of reference tests it passes (see the module docstring)."""

    name = "code"
    params_schema = CodeConfig  # its fields are checked when a spec is built (rewardkit.plugins.params)

    def __init__(
        self, sandbox: str | Sandbox = "local", sandbox_options: dict[str, Any] | None = None, **settings: Any
    ) -> None:
        known = {f.name for f in fields(CodeConfig)}
        unknown = sorted(set(settings) - known)
        if unknown:
            raise ConfigError(
                f"code verifier: unknown parameter(s) {', '.join(unknown)}; "
                f"it accepts: sandbox, sandbox_options, {', '.join(sorted(known))}"
            )
        self.config = CodeConfig(**settings)
        self.batch_threads = self.config.workers or max(2, min(16, (os.cpu_count() or 1) * 2))
        self._limits = self.config.limits()
        self._lock = threading.Lock()
        self.builds = BuildCache(self.config.compile_cache_bytes, self.config.compile_cache_dir)
        if isinstance(sandbox, Sandbox):
            if sandbox_options:
                raise ConfigError("code verifier: sandbox_options only apply when sandbox is given by name")
            self._sandbox: Sandbox | None = sandbox
            self._owns_sandbox = False
            self.sandbox_name = getattr(sandbox, "name", type(sandbox).__name__)
        elif isinstance(sandbox, str):
            from rewardkit.sandbox.lookup import get_sandbox

            options = dict(sandbox_options or {})
            self._sandbox = get_sandbox(sandbox, warm=options.pop("warm", warm_program()), **options)
            self._owns_sandbox = True
            self.sandbox_name = sandbox
        else:
            raise ConfigError(
                f"code verifier: sandbox must be a sandbox name or a Sandbox, got {type(sandbox).__name__}"
            )

    @property
    def sandbox(self) -> Sandbox:
        if self._sandbox is None:
            raise SandboxError("code verifier is closed")
        return self._sandbox

    def _verify(self, completion: Any, reference: Any, **context: Any) -> Verdict:
        text = completion_text(completion, turns="final", reasoning=False)
        chosen = select(text, reference, context, self.config.language)
        program = chosen.program
        if not program.strip():
            return Verdict.fail(Status.NO_ANSWER, None, error="no program in the completion")
        if chosen.unknown:
            return Verdict.fail(
                Status.INVALID_REFERENCE,
                program,
                error=f"the row asks for language {chosen.unknown!r}, which is not registered",
            )
        if chosen.mismatch:
            return Verdict(0.0, False, Status.LANGUAGE_MISMATCH, program, {"error": chosen.mismatch})
        if chosen.language is not None and (chosen.language.family != "python" or needs_judge(reference, context)):
            return self._judge(chosen, reference, context)
        try:
            job = prepare_job(
                program,
                reference,
                self._limits,
                call_timeout=self.config.call_timeout,
                tolerance=self.config.tolerance,
                partial_credit=self.config.partial_credit,
                context=context,
                public_only=self.config.public_tests_only,
            )
        except InvalidReference as exc:
            return Verdict.fail(
                Status.INVALID_REFERENCE, program, error=f"bad reference (not the model's fault): {exc}"
            )
        try:
            result = self.sandbox.run(job.command, job.files, stdin=job.stdin, limits=job.limits)
        except SandboxError as exc:
            return Verdict.fail(
                Status.SANDBOX_ERROR,
                program,
                error=f"sandbox failure (not the model's fault): {exc}",
                backend=self.sandbox_name,
            )
        verdict = parse_result(job, result, program)
        return Verdict(
            verdict.score,
            verdict.correct,
            verdict.status,
            verdict.extracted,
            {**verdict.details, "backend": self.sandbox_name},
        )

    def _judge(self, chosen: Selection, reference: Any, context: dict[str, Any]) -> Verdict:
        """A program in a registered language, or a competitive-programming row: the native judge."""
        assert chosen.language is not None
        try:
            problem = problem_from_row(reference, context, self.config.tolerance)
        except InvalidReference as exc:
            if "judge Python only" in str(exc):
                why = f"the row's tests call Python functions; the completion is in {chosen.language.name}"
                return Verdict(0.0, False, Status.LANGUAGE_MISMATCH, chosen.program, {"error": why})
            return Verdict.fail(
                Status.INVALID_REFERENCE, chosen.program, error=f"bad reference (not the model's fault): {exc}"
            )
        settings = {
            "time_limit": self.config.time_limit,
            "memory_limit": self.config.memory_limit,
            "time_scale": self.config.time_scale,
            "checker_time": self.config.checker_time,
            "judge_budget": self.config.judge_budget,
            "partial_credit": self.config.partial_credit,
            "max_scratch_bytes": self.config.max_scratch_bytes,
        }
        return judge_program(
            self.sandbox, chosen.language, chosen.program, problem, self.builds, settings, self.sandbox_name
        )

    def batch_metrics(self, verdicts: Any) -> dict[str, float]:
        """Of these verdicts' programs in a compiled language: how many were built (``compile_cache/misses``)
        and how many came from the compile cache (``compile_cache/hits``); none when no program was compiled.
        ``self.builds.counts`` holds the running totals (compile errors included)."""
        cached = [
            v.details.get("compile_cached") for v in verdicts if isinstance(v.details.get("compile_cached"), bool)
        ]
        if not cached:
            return {}
        hits = float(sum(cached))
        return {"compile_cache/hits": hits, "compile_cache/misses": len(cached) - hits}

    def close(self) -> None:
        with self._lock:
            sandbox, self._sandbox = self._sandbox, None
        if sandbox is not None and self._owns_sandbox:
            sandbox.close()
