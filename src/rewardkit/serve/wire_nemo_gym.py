"""``POST /verify``: a NeMo-Gym resources server's verify shape.

NeMo-Gym posts the task's ``responses_create_params`` (its ``input``: the prompt), the policy's
``response`` (an OpenAI Responses object: ``output`` items of type ``message`` hold ``output_text`` parts,
``reasoning`` items the reasoning) and the task's own fields (``expected_answer``, ``question``,
``options``, ...), and reads back the request with ``reward`` (a float) added. A sample with no reward value
is answered as NeMo-Gym's own infrastructure failures are: ``reward`` 0.0 with ``_ng_failure_class`` set,
which its rollout collection keeps out of the results and retries, never as a wrong answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from rewardkit.rewards.base import Scored
from rewardkit.rewards.inputs import Batch
from rewardkit.serve.wire_native import first_extracted, first_status

FAILURE_CLASS_KEY = "_ng_failure_class"
FAILURE_CLASS = "reward_unavailable"
FAILURE_ERROR_KEY = "_ng_failure_error"


class VerifyRequest(BaseModel):
    model_config = ConfigDict(extra="allow")

    responses_create_params: dict[str, Any] = Field(description="The task's Responses API request (its input).")
    response: dict[str, Any] = Field(description="The policy's Responses API response (its output items).")


class VerifyResponse(VerifyRequest):
    reward: float = Field(description="The reward's value (0.0 with _ng_failure_class set where it has none).")
    extracted_answer: str | None = None
    status: str | None = Field(default=None, description="The first verifier term's verdict status.")
    reward_components: dict[str, float] = Field(
        default_factory=dict, description="Each component's value (composite rewards), the same keys every time."
    )


def _texts(parts: Any, kinds: tuple[str, ...]) -> list[str]:
    if not isinstance(parts, list):
        return []
    return [str(p.get("text", "")) for p in parts if isinstance(p, Mapping) and p.get("type") in kinds]


def response_messages(response: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The response's output as one assistant message: the output text, and its reasoning (rendered as a
    ``<think>`` block by ``completion_text``, as TRL's chat completions are)."""
    text: list[str] = []
    reasoning: list[str] = []
    for item in response.get("output") or []:
        if not isinstance(item, Mapping):
            continue
        if item.get("type") == "message" and item.get("role", "assistant") == "assistant":
            text += _texts(item.get("content"), ("output_text",))
        elif item.get("type") == "reasoning":
            reasoning += _texts(item.get("content"), ("reasoning_text",)) or _texts(
                item.get("summary"), ("summary_text",)
            )
    message: dict[str, Any] = {"role": "assistant", "content": "".join(text)}
    if any(reasoning):
        message["reasoning_content"] = "\n".join(r for r in reasoning if r)
    return [message]


def verify_batch(request: VerifyRequest) -> Batch:
    extras = dict(request.model_extra or {})
    columns: dict[str, list[Any]] = {k: [v] for k, v in extras.items()}
    if "expected_answer" in extras and "answer" not in extras:
        columns["answer"] = [extras["expected_answer"]]
    prompt = request.responses_create_params.get("input")
    return Batch.from_call([prompt], [response_messages(request.response)], columns)


def verify_response(request_body: dict[str, Any], scored: Scored) -> dict[str, Any]:
    value = scored.values[0]
    out = dict(request_body)
    out.update(
        reward=0.0 if value is None else value,
        extracted_answer=first_extracted(scored, 0),
        status=first_status(scored, 0),
    )
    if len(scored.components) > 1:
        out["reward_components"] = {k: 0.0 if v[0] is None else v[0] for k, v in scored.components.items()}
    if value is None:
        statuses = {k: v[0] for k, v in scored.statuses.items() if v[0] is not None}
        out[FAILURE_CLASS_KEY] = FAILURE_CLASS
        out[FAILURE_ERROR_KEY] = (
            "rewardkit: no reward value ("
            + (", ".join(f"{k}: {s}" for k, s in statuses.items()) or "no term applied to this sample")
            + ")"
        )
    return out
