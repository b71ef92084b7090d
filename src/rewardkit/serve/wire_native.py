"""``POST /v1/score``: rewardkit's own batch shape (what ``RemoteReward`` sends), and ``GET /health``.

In: completions (strings or chat messages), optional prompts, dataset columns (one list per column, a value
per completion). Out: the reward's value per row (null where it has none), each component's values, each
verifier term's statuses and extracted answers: the in-process ``Scored``, as JSON.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from rewardkit.rewards.base import Scored
from rewardkit.rewards.inputs import TRAINER_KWARGS, Batch
from rewardkit.serve.service import Refusal

Completion = str | list[dict[str, Any]] | dict[str, Any]


class ScoreRequest(BaseModel):
    """A batch to score: ``completions[i]`` with ``prompts[i]`` and ``columns[name][i]`` for each column."""

    model_config = ConfigDict(extra="forbid")

    completions: list[Completion] = Field(description="Completion texts, or chat messages as TRL passes them.")
    prompts: list[Any] | None = Field(default=None, description="The prompts, one per completion (optional).")
    columns: dict[str, list[Any]] = Field(
        default_factory=dict, description="Dataset columns the reward reads (e.g. answer), one value per row."
    )


class RowError(BaseModel):
    row: int
    error: str


class ScoreResponse(BaseModel):
    """The reward's result, row by row (``Scored`` in rewards/base.py)."""

    reward: str = Field(description="The reward's name (TRL logs rewards/<name>/mean).")
    values: list[float | None] = Field(description="One value per completion; null where the reward has none.")
    components: dict[str, list[float | None]] = Field(description="Each leaf reward's values, by label.")
    statuses: dict[str, list[str | None]] = Field(description="Each verifier term's verdict status per row.")
    extracted: dict[str, list[str | None]] = Field(description="Each verifier term's extracted answer per row.")
    errors: list[RowError] = Field(
        default_factory=list, description="Rows whose scoring raised: no value, status 'error', and why."
    )


class HealthResponse(BaseModel):
    status: str = Field(description="'ok', or 'draining' (answered with 503) after SIGTERM.")
    reward: str
    version: str
    auth: bool = Field(description="Whether scoring requests need a bearer token.")
    max_rows: int
    max_body_bytes: int


def check_lengths(n: int, lists: dict[str, list[Any] | None]) -> None:
    """422 naming the first field whose list does not have one entry per row."""
    for field, values in lists.items():
        if values is not None and len(values) != n:
            raise Refusal(
                422,
                "invalid_request",
                f"{field} has {len(values)} entries for {n} rows; give one per row",
                errors=[{"field": field, "message": f"expected {n} entries, got {len(values)}"}],
            )


def native_batch(request: ScoreRequest) -> Batch:
    n = len(request.completions)
    check_lengths(n, {"prompts": request.prompts, **{f"columns.{k}": v for k, v in request.columns.items()}})
    reserved = sorted(set(request.columns) & TRAINER_KWARGS)
    if reserved:
        raise Refusal(
            422,
            "invalid_request",
            f"columns.{reserved[0]} is a trainer argument, not a dataset column",
            errors=[{"field": f"columns.{reserved[0]}", "message": "reserved name"}],
        )
    return Batch.from_call(request.prompts, request.completions, request.columns)


def native_response(name: str, scored: Scored) -> dict[str, Any]:
    return {
        "reward": name,
        "values": scored.values,
        "components": scored.components,
        "statuses": scored.statuses,
        "extracted": scored.extracted,
        "errors": [{"row": i, "error": e} for i, e in sorted(getattr(scored, "errors", {}).items())],
    }


def first_status(scored: Scored, i: int) -> str | None:
    """Row ``i``'s status from the first verifier term that judged it (as ``rewardkit score`` reports it)."""
    for column in scored.statuses.values():
        if column[i] is not None:
            return column[i]
    return None


def first_extracted(scored: Scored, i: int) -> str | None:
    for label, column in scored.statuses.items():
        if column[i] is not None:
            return scored.extracted.get(label, [None] * (i + 1))[i]
    return None


def accuracy_values(scored: Scored) -> list[float | None]:
    """The first verifier term's values (its accuracy, in [0, 1]), else the total: what OpenRLHF's dynamic
    filtering reads as ``scores``."""
    for label in scored.statuses:
        if label in scored.components:
            return scored.components[label]
    return scored.values
