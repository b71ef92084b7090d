"""The "math" verifier: extract the final answer, then compare it with the reference symbolically.

Extraction (:mod:`rewardkit.verifiers.math_answer.extract`) runs in the caller's thread: it is linear-time.
Comparison (:mod:`rewardkit.verifiers.math_answer.compare`, sympy and math-verify) runs in killable worker
processes, so every sample has a hard time limit from any thread, and a pathological input such as
``9^{9^{9^9}}`` costs one worker about ``timeout`` seconds without stalling the rest of the batch.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from rewardkit._errors import ConfigError
from rewardkit.verifiers.base import Verifier, check_batch
from rewardkit.verifiers.math_answer.compare import Judgement, Task, normalize, split_values
from rewardkit.verifiers.math_answer.extract import (
    EXTRACTION_MODES,
    LENIENT,
    ExtractedAnswer,
    extract_answer,
    unfinished_thought,
)
from rewardkit.verifiers.math_answer.numeric import ROUNDING_PLACES
from rewardkit.verifiers.math_answer.reference import reference_text
from rewardkit.verifiers.math_answer.values import value_key
from rewardkit.verifiers.text import completion_text
from rewardkit.verifiers.verdict import Status, Verdict
from rewardkit.verifiers.worker_pool import TASK_OK, TASK_TIMEOUT, WorkerPool

_WORKER_TARGET = "rewardkit.verifiers.math_answer.worker:judge_in_worker"


@dataclass(frozen=True)
class MathConfig:
    """Settings of the math verifier. ``timeout`` is the per-sample limit in seconds; ``extraction`` is
    ``"lenient"`` (fall back to the last math written) or ``"strict"`` (boxes, statements and tags only);
    ``rounding_places`` is the fewest decimal places a decimal answer needs to stand for an exact reference it
    only rounds (6, math-verify's precision; 2 accepts ``3.14`` for ``\\pi``, for datasets that ask for
    rounded answers)."""

    timeout: float = 1.5
    workers: int | None = None
    grace: float = 0.5
    extraction: str = LENIENT
    rounding_places: int = ROUNDING_PLACES

    def __post_init__(self) -> None:
        if not self.timeout > 0:
            raise ConfigError(f"math verifier: timeout must be a positive number of seconds, got {self.timeout!r}")
        if self.workers is not None and self.workers < 1:
            raise ConfigError(f"math verifier: workers must be >= 1 or None (one per core), got {self.workers!r}")
        if self.extraction not in EXTRACTION_MODES:
            raise ConfigError(
                f"math verifier: extraction must be one of {', '.join(map(repr, EXTRACTION_MODES))}, "
                f"got {self.extraction!r}"
            )
        if (
            isinstance(self.rounding_places, bool)
            or not isinstance(self.rounding_places, int)
            or not (1 <= self.rounding_places <= 15)
        ):
            raise ConfigError(
                f"math verifier: rounding_places must be an integer from 1 to 15 (decimal places), "
                f"got {self.rounding_places!r}"
            )


class MathVerifier(Verifier):
    """Symbolic math equivalence (sympy + math-verify) with a hard per-sample time limit."""

    name = "math"
    params_schema = MathConfig  # checked when a spec is built (rewardkit.plugins.params)

    def __init__(
        self,
        *,
        timeout: float = 1.5,
        workers: int | None = None,
        grace: float = 0.5,
        extraction: str = LENIENT,
        rounding_places: int = ROUNDING_PLACES,
    ) -> None:
        self.config = MathConfig(
            timeout=timeout, workers=workers, grace=grace, extraction=extraction, rounding_places=rounding_places
        )
        self._pool: WorkerPool | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"MathVerifier({', '.join(f'{k}={v!r}' for k, v in asdict(self.config).items())})"

    def __getstate__(self) -> dict[str, Any]:
        return {"config": self.config}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.config = state["config"]
        self._pool = None
        self._lock = threading.Lock()

    @property
    def pool(self) -> WorkerPool:
        with self._lock:
            if self._pool is None:
                self._pool = WorkerPool(_WORKER_TARGET, workers=self.config.workers, grace=self.config.grace)
            return self._pool

    def _prepare(self, completion: Any, reference: Any) -> Verdict | tuple[ExtractedAnswer, Task]:
        gold = reference_text(reference)
        if gold is None:
            return Verdict.fail(Status.INVALID_REFERENCE, reason=f"no usable reference: {reference!r}")
        text = completion_text(completion, turns="final", reasoning=False)
        found = extract_answer(text, self.config.extraction)
        if found is None:
            if unfinished_thought(text):
                return Verdict.fail(
                    Status.NO_ANSWER, reason="the think block never closed: the completion ended before answering"
                )
            what = "math or number" if self.config.extraction == LENIENT else "boxed answer or answer statement"
            return Verdict.fail(Status.NO_ANSWER, reason=f"no {what} found")
        if found.retracted is not None:
            return Verdict.fail(
                Status.HEDGED,
                found.text,
                source=found.source,
                retracted=found.retracted[:200],
                reason="the completion takes its answer back and gives none in its place",
            )
        keys = {value_key(v) for v in found.values}
        later = tuple(
            (p.sides, p.approximate, p.kind) for p in found.proposals if not any(value_key(s) in keys for s in p.sides)
        )
        if not later and len(found.values) == 1 and _trivially_equal(found.text, gold):
            return Verdict(1.0, True, Status.OK, found.text, {"reason": "identical", "source": found.source})
        return found, Task(found.values, gold, later, self.config.rounding_places, found.meant)

    def _verify(self, completion: Any, reference: Any, **context: Any) -> Verdict:
        prepared = self._prepare(completion, reference)
        if isinstance(prepared, Verdict):
            return prepared
        found, task = prepared
        result = self.pool.run(task, self.config.timeout)
        return _to_verdict(found, result)

    def verify_batch(
        self,
        completions: Sequence[Any],
        references: Sequence[Any],
        contexts: Sequence[Mapping[str, Any] | None] | None = None,
    ) -> list[Verdict]:
        check_batch(completions, references, contexts)
        verdicts: list[Verdict | None] = []
        pending: list[tuple[int, ExtractedAnswer, Task]] = []
        for i, (completion, reference) in enumerate(zip(completions, references, strict=True)):
            try:
                prepared = self._prepare(completion, reference)
            except Exception as exc:  # noqa: BLE001 - one bad sample must not sink the batch
                prepared = Verdict.fail(Status.ERROR, error=f"{type(exc).__name__}: {exc}")
            if isinstance(prepared, Verdict):
                verdicts.append(prepared)
            else:
                verdicts.append(None)
                pending.append((i, *prepared))
        results = self.pool.map([task for _, _, task in pending], self.config.timeout)
        for (i, found, _), result in zip(pending, results, strict=True):
            verdicts[i] = _to_verdict(found, result)
        return [v for v in verdicts if v is not None]

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()


def _trivially_equal(answer: str, gold: str) -> bool:
    a, g = normalize(answer).replace(" ", ""), normalize(gold).replace(" ", "")
    return a == g and len(split_values(gold)) == 1


def _to_verdict(found: ExtractedAnswer, result: Any) -> Verdict:
    details: dict[str, Any] = {"source": found.source}
    if len(found.values) > 1:
        details["values"] = list(found.values)
    if result.status == TASK_TIMEOUT:
        return Verdict.fail(Status.TIMEOUT, found.text, **details, reason=result.error or "comparison timed out")
    if result.status != TASK_OK:
        return Verdict.fail(Status.ERROR, found.text, **details, error=result.error)
    judgement: Judgement = result.value
    details["reason"] = judgement.reason
    return Verdict(1.0 if judgement.correct else 0.0, judgement.correct, judgement.status, found.text, details)
