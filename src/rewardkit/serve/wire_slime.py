"""``POST /reward``: slime's ``--rm-type remote_rm --rm-url`` shape, one sample per request.

slime posts ``{"prompt": ..., "response": ..., "label": ...}`` (the prompt a string or chat messages) and
keeps the JSON it gets back as the sample's reward; with ``--reward-key reward`` it reads that key of the
dict this endpoint answers. Other fields of the request become dataset columns.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from rewardkit.rewards.base import Scored
from rewardkit.rewards.inputs import Batch
from rewardkit.serve.wire_native import first_extracted, first_status

RESERVED = frozenset({"reward", "status", "extracted", "no_value"})


class SlimeRequest(BaseModel):
    model_config = ConfigDict(extra="allow")

    prompt: Any = Field(default=None, description="The sample's prompt: a string or chat messages.")
    response: str = Field(description="The sample's response text.")
    label: Any = Field(default=None, description="The sample's label: the reference answer.")


class SlimeResponse(BaseModel):
    """A ``--reward-key`` dict: ``reward`` is the value to train on; the rest is for logs."""

    model_config = ConfigDict(extra="allow")

    reward: float | None = Field(description="The reward's value (null, or --none-reward, where it has none).")
    status: str | None = Field(description="The first verifier term's verdict status.")
    extracted: str | None = Field(description="The answer that verifier term read from the response.")
    no_value: bool = Field(description="True when the reward has no value for this sample.")


def slime_batch(request: SlimeRequest) -> Batch:
    columns: dict[str, list[Any]] = {k: [v] for k, v in (request.model_extra or {}).items()}
    # Always a column: a sample sent with no label is a row with no reference (no value), not a bad request.
    columns.update({"label": [request.label], "answer": [request.label]})
    return Batch.from_call([request.prompt], [request.response], columns)


def slime_response(scored: Scored, none_reward: float | None) -> dict[str, Any]:
    value = scored.values[0]
    out: dict[str, Any] = {
        "reward": none_reward if value is None else value,
        "status": first_status(scored, 0),
        "extracted": first_extracted(scored, 0),
        "no_value": value is None,
    }
    if len(scored.components) > 1:
        for label, values in scored.components.items():
            if label not in RESERVED:
                out[label] = values[0]
        for label, statuses in scored.statuses.items():
            out[f"{label}/status"] = statuses[0]
    return out
