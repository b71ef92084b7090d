"""The structured result every verifier returns."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class Status(str, Enum):
    """Why a verdict earned what it did. A str-Enum: ``Status.HEDGED == "hedged"`` is True, and it prints,
    formats and serialises as its plain value, so code comparing statuses with strings keeps working."""

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
    INVALID_OPTION = "invalid_option"
    OPTION_MISMATCH = "option_mismatch"
    JUDGE_ERROR = "judge_error"
    MALFORMED_CALL = "malformed_call"
    UNKNOWN_FUNCTION = "unknown_function"
    SCHEMA_VIOLATION = "schema_violation"
    TOO_MANY_CALLS = "too_many_calls"
    ENVIRONMENT_ERROR = "environment_error"
    LANGUAGE_MISMATCH = "language_mismatch"

    __str__ = str.__str__
    __format__ = str.__format__  # type: ignore[assignment]
    __repr__ = str.__repr__


_BY_VALUE = {s.value: s for s in Status}

#: Failures of the system, not of the model: a broken sandbox, a verifier bug or crashed worker, a reference
#: that holds no answer, a judge model that could not be reached or gave no readable verdict, an environment
#: whose own reward method failed. A reward gives
#: such a row None (no reward), never 0.0, so the policy is not pushed away from a completion nobody judged.
INFRASTRUCTURE_STATUSES = frozenset(
    {Status.SANDBOX_ERROR, Status.ERROR, Status.INVALID_REFERENCE, Status.JUDGE_ERROR, Status.ENVIRONMENT_ERROR}
)
#: Infrastructure failures worth a second try before the row is given up (a container that died mid-run).
RETRIED_STATUSES = frozenset({Status.SANDBOX_ERROR})


def is_infrastructure_failure(status: object) -> bool:
    """Whether a verdict status is the system's failure, not the model's: such a row earns no reward (None).

    True for ``sandbox_error``, ``error``, ``invalid_reference``, ``judge_error`` and ``environment_error``;
    False for every status the model earned (``ok``, ``no_answer``, ``hedged``, ``timeout``, ``compile_error``,
    ...), for None and for a plugin's own status strings.
    """
    return isinstance(status, str) and status in INFRASTRUCTURE_STATUSES


@dataclass(frozen=True)
class Verdict:
    """One completion judged against one reference.

    ``status`` is ``"ok"`` when the judgement ran to the end (whether or not the answer is right);
    any other status says why the answer earned nothing or only partial credit. A known status is a
    :class:`Status` (equal to its string); a plugin's own status strings are kept as they are.
    """

    score: float
    correct: bool
    status: str = Status.OK
    extracted: str | None = None
    details: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        score = float(self.score)
        if not 0.0 <= score <= 1.0:  # also rejects NaN
            raise ValueError(f"verdict score must lie in [0, 1], got {self.score!r}")
        object.__setattr__(self, "score", score)
        object.__setattr__(self, "correct", bool(self.correct))
        if isinstance(self.status, str) and not isinstance(self.status, Status) and self.status in _BY_VALUE:
            object.__setattr__(self, "status", _BY_VALUE[self.status])

    @classmethod
    def fail(cls, status: str, extracted: str | None = None, **details: Any) -> Verdict:
        """A zero-score verdict with a reason."""
        return cls(0.0, False, status, extracted, details)

    @property
    def is_infrastructure_failure(self) -> bool:
        """True when the failure is the system's, not the model's (a broken sandbox, a verifier error, a bad
        reference): a reward gives the row None. See :func:`is_infrastructure_failure`."""
        return is_infrastructure_failure(self.status)

    def to_dict(self) -> dict[str, Any]:
        return {
            "score": self.score,
            "correct": self.correct,
            "status": str(self.status),
            "extracted": self.extracted,
            "details": dict(self.details),
        }
