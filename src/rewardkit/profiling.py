"""Where scoring time goes: per-stage wall-clock timers, collected only while a profile is running.

    from rewardkit import profiling
    with profiling.collect() as profile:
        reward(completions=..., answer=...)
    print(profile.render())

Code that owns a stage marks it with ``with profiling.stage("mcq: extract"):``; when no profile is being
collected that returns a shared no-op object (one global read), so the markers cost nothing measurable.
Stages of modules maintained elsewhere (math, code harness, sandboxes) are timed by :data:`PROBES`:
wrappers put around those functions only while a profile is collected and removed after, so those modules
carry no profiling code and pay nothing when it is off. A probe whose function no longer exists is listed
as not instrumented rather than failing.

Times are wall clock per call, summed over calls: stages that run on several threads at once (code
verdicts, math comparisons) can add up to more than the run's wall time. Work inside sandboxes and worker
processes is seen from the host (one sandbox run, one comparison), not split further.
"""

from __future__ import annotations

import functools
import importlib
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

# (stage, module, attribute): "Class.method" patches the class, a plain name patches the module global.
PROBES: tuple[tuple[str, str, str], ...] = (
    ("math: extract", "rewardkit.verifiers.math_answer.verifier", "extract_answer"),
    ("math: compare (worker round trip)", "rewardkit.verifiers.worker_pool", "WorkerPool.run"),
    ("code: extract program", "rewardkit.verifiers.code_tests.verifier", "extract_program"),
    ("code: prepare job", "rewardkit.verifiers.code_tests.verifier", "prepare_job"),
    ("code: sandbox run (start+fork+tests)", "rewardkit.sandbox.local.sandbox", "LocalSandbox.run"),
    ("code: local sandbox launch setup", "rewardkit.sandbox.local.sandbox", "LocalSandbox._launch"),
    ("code: fork (job to zygote -> supervisor up)", "rewardkit.sandbox.local.zygote", "Zygote.start_run"),
    ("code: sandbox run (start+fork+tests)", "rewardkit.sandbox.docker.sandbox", "DockerSandbox.run"),
    ("code: result decode", "rewardkit.verifiers.code_tests.verifier", "parse_result"),
)

_lock = threading.Lock()
_active: Profile | None = None


@dataclass
class Profile:
    """Calls and summed seconds per stage, the run's wall time, and the probes that found nothing."""

    totals: dict[str, list[float]] = field(default_factory=dict)  # stage -> [calls, seconds]
    seconds: float = 0.0
    not_instrumented: list[str] = field(default_factory=list)
    _started: float = field(default_factory=time.perf_counter, repr=False)
    _undo: list[Callable[[], None]] = field(default_factory=list, repr=False)

    def add(self, name: str, elapsed: float) -> None:
        with _lock:
            entry = self.totals.setdefault(name, [0, 0.0])
            entry[0] += 1
            entry[1] += elapsed

    def rows(self) -> list[tuple[str, int, float, float]]:
        """(stage, calls, total seconds, mean milliseconds per call), slowest first."""
        return sorted(
            ((name, int(calls), total, 1000 * total / calls) for name, (calls, total) in self.totals.items()),
            key=lambda row: -row[2],
        )

    def render(self) -> str:
        lines = [
            f"profile: {self.seconds:.2f} s wall (stages on several threads can sum to more)",
            f"{'stage':<40} {'calls':>8} {'total s':>9} {'mean ms':>9}",
        ]
        lines += [f"{name:<40} {calls:>8} {total:>9.3f} {mean:>9.3f}" for name, calls, total, mean in self.rows()]
        if not self.rows():
            lines.append("(no instrumented stage ran)")
        if self.not_instrumented:
            lines.append("not instrumented (function not found): " + ", ".join(self.not_instrumented))
        return "\n".join(lines)


class _Stage:
    __slots__ = ("name", "profile", "start")

    def __init__(self, name: str, profile: Profile) -> None:
        self.name, self.profile = name, profile

    def __enter__(self) -> _Stage:
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.profile.add(self.name, time.perf_counter() - self.start)


class _Off:
    __slots__ = ()

    def __enter__(self) -> _Off:
        return self

    def __exit__(self, *exc_info: object) -> None:
        return None


_OFF = _Off()


def stage(name: str) -> _Stage | _Off:
    """A timer for one stage of one sample, or a no-op when no profile is being collected."""
    profile = _active
    return _OFF if profile is None else _Stage(name, profile)


def start() -> Profile:
    """Start collecting (one profile at a time per process); pair with :func:`stop`."""
    global _active
    with _lock:
        if _active is not None:
            raise RuntimeError("a profile is already being collected in this process")
        profile = _active = Profile()
    for name, module, attribute in PROBES:
        if not _install(profile, name, module, attribute):
            profile.not_instrumented.append(f"{module}:{attribute}")
    return profile


def stop(profile: Profile) -> Profile:
    global _active
    with _lock:
        if _active is profile:
            _active = None
    for undo in reversed(profile._undo):
        undo()
    profile._undo.clear()
    profile.seconds = time.perf_counter() - profile._started
    return profile


@contextmanager
def collect() -> Iterator[Profile]:
    profile = start()
    try:
        yield profile
    finally:
        stop(profile)


def _install(profile: Profile, name: str, module_name: str, attribute: str) -> bool:
    try:
        owner: Any = importlib.import_module(module_name)
    except ImportError:
        return False
    *path, leaf = attribute.split(".")
    for part in path:
        owner = getattr(owner, part, None)
    original = getattr(owner, leaf, None) if owner is not None else None
    if not callable(original):
        return False

    @functools.wraps(original)
    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            profile.add(name, time.perf_counter() - started)

    setattr(owner, leaf, timed)
    profile._undo.append(lambda: setattr(owner, leaf, original))
    return True
