"""``POST /get_reward``: OpenRLHF's ``--remote_rm_url`` shape.

OpenRLHF posts ``{"query": [...], "prompts": [...], "labels": [...]}``: each query is the whole decoded
sequence (the prompt as the chat template rendered it, then the response, special tokens kept), and reads
``{"rewards": [...], "scores": [...], "extra_logs": {key: [...]}}``. It builds tensors from all three, so
every value is a number and ``extra_logs`` has the same keys in every answer.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from rewardkit.rewards.base import Scored
from rewardkit.rewards.inputs import Batch
from rewardkit.serve.wire_native import accuracy_values, check_lengths

# End-of-turn and end-of-text markers a decode with special tokens leaves after the response.
TRAILING_SPECIAL = re.compile(
    r"(?:\s*(?:<\|(?:im_end|eot_id|endoftext|end|eom_id|end_of_text)\|>|</s>|<eos>|<end_of_turn>|<\|EOT\|>))+\s*\Z"
)
PROMPT_TAIL = 64  # characters of the prompt's end used to find it in a query that does not start with it


class OpenRLHFRequest(BaseModel):
    """OpenRLHF's request; other list fields with one value per query become dataset columns too."""

    model_config = ConfigDict(extra="allow")

    query: list[str] = Field(description="Each sample's decoded prompt + response (special tokens kept).")
    prompts: list[str] | None = Field(default=None, description="Each sample's prompt, as rendered.")
    labels: list[Any] | None = Field(default=None, description="Each sample's label: the reference answer.")


class OpenRLHFResponse(BaseModel):
    rewards: list[float | None] = Field(description="The reward's total per sample (what OpenRLHF trains on).")
    scores: list[float | None] = Field(
        description="The first verifier term's value (accuracy, in [0, 1]; the total where it has none) per "
        "sample, for dynamic filtering."
    )
    extra_logs: dict[str, list[float]] = Field(
        description="Per sample: each component's value, '<term>/ok' (1.0 when the verdict status is ok) and "
        "'no_value' (1.0 when the reward has no value); the same keys in every answer."
    )


def response_of(query: str, prompt: str | None) -> str:
    """The response part of an OpenRLHF query: after the prompt, without trailing end-of-turn tokens."""
    text = query
    if prompt:
        if query.startswith(prompt):
            text = query[len(prompt) :]
        else:
            tail = prompt[-PROMPT_TAIL:]
            at = query.rfind(tail) if tail.strip() else -1
            if at >= 0:
                text = query[at + len(tail) :]
    return TRAILING_SPECIAL.sub("", text)


def openrlhf_batch(request: OpenRLHFRequest) -> Batch:
    n = len(request.query)
    extras = {k: v for k, v in (request.model_extra or {}).items() if isinstance(v, list) and len(v) == n}
    check_lengths(n, {"prompts": request.prompts, "labels": request.labels})
    prompts: list[str | None] = list(request.prompts) if request.prompts is not None else [None] * n
    completions = [response_of(q, p) for q, p in zip(request.query, prompts, strict=True)]
    columns: dict[str, list[Any]] = dict(extras)
    if request.labels is not None:
        columns.update({"label": list(request.labels), "answer": list(request.labels)})
    return Batch.from_call(request.prompts, completions, columns)


def openrlhf_response(scored: Scored, none_reward: float | None) -> dict[str, Any]:
    def fill(values: list[float | None]) -> list[float | None]:
        return [none_reward if v is None else v for v in values]

    logs: dict[str, list[float]] = {}
    if len(scored.components) > 1:
        for label, values in scored.components.items():
            logs[label] = [0.0 if v is None else v for v in values]
    for label, statuses in scored.statuses.items():
        logs[f"{label}/ok"] = [1.0 if s == "ok" else 0.0 for s in statuses]
    logs["no_value"] = [1.0 if v is None else 0.0 for v in scored.values]
    scores = [s if s is not None else v for s, v in zip(accuracy_values(scored), scored.values, strict=True)]
    return {"rewards": fill(scored.values), "scores": fill(scores), "extra_logs": logs}
