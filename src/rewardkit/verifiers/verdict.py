"""The structured result every verifier returns."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

OK = "ok"
NO_ANSWER = "no_answer"
PARSE_ERROR = "parse_error"
HEDGED = "hedged"
TIMEOUT = "timeout"
ERROR = "error"
INVALID_REFERENCE = "invalid_reference"
COMPILE_ERROR = "compile_error"
RUNTIME_ERROR = "runtime_error"
MEMORY_LIMIT = "memory_limit"
OUTPUT_LIMIT = "output_limit"
SANDBOX_ERROR = "sandbox_error"

INFRASTRUCTURE_STATUSES = frozenset({SANDBOX_ERROR, INVALID_REFERENCE})


@dataclass(frozen=True)
class Verdict:
    """One completion judged against one reference.

    ``status`` is ``"ok"`` when the judgement ran to the end (whether or not the answer is right);
    any other status says why the answer earned nothing or only partial credit.
    """

    score: float
    correct: bool
    status: str = OK
    extracted: str | None = None
    details: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        score = float(self.score)
        if not 0.0 <= score <= 1.0:  # also rejects NaN
            raise ValueError(f"verdict score must lie in [0, 1], got {self.score!r}")
        object.__setattr__(self, "score", score)
        object.__setattr__(self, "correct", bool(self.correct))

    @classmethod
    def fail(cls, status: str, extracted: str | None = None, **details: Any) -> Verdict:
        """A zero-score verdict with a reason."""
        return cls(0.0, False, status, extracted, details)

    @property
    def is_infrastructure_failure(self) -> bool:
        """True when the failure is the system's, not the model's (a broken sandbox, a bad reference)."""
        return self.status in INFRASTRUCTURE_STATUSES

    def to_dict(self) -> dict[str, Any]:
        return {
            "score": self.score,
            "correct": self.correct,
            "status": self.status,
            "extracted": self.extracted,
            "details": dict(self.details),
        }
