"""``tool_call_accuracy``: the completion's function calls against the row's reference calls (docs/tool-calls.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rewardkit.rewards.infrastructure import DEFAULT_MAX_RATE, DEFAULT_WINDOW
from rewardkit.rewards.verifier_rewards import DEFAULT_REFERENCE_KEYS, VerifierReward


def tool_call_accuracy(
    *,
    reference_key: str | Sequence[str] = (*DEFAULT_REFERENCE_KEYS, "ground_truth", "reference_calls", "answers"),
    tools_key: str = "tools",
    functions_key: str = "function",
    turns: str = "final",
    max_infrastructure_failure_rate: float | None = DEFAULT_MAX_RATE,
    infrastructure_failure_window: int = DEFAULT_WINDOW,
    **verifier_params: Any,
) -> VerifierReward:
    """The ``tool_call`` verifier's score: 1.0 when the calls match the reference calls (``mode: partial``
    pays per call and per argument). The function schemas, when the rows have them, come from ``tools_key``,
    else from ``functions_key`` (BFCL's ``function`` column); a reference that cannot be read gets None
    (``invalid_reference``), a malformed call 0.0. ``answers`` is xLAM's reference column."""
    return VerifierReward(
        "tool_call_accuracy",
        "tool_call",
        verifier_params=verifier_params,
        reference_key=reference_key,
        context_keys={"tools": tools_key, "functions": functions_key},
        turns=turns,
        max_infrastructure_failure_rate=max_infrastructure_failure_rate,
        infrastructure_failure_window=infrastructure_failure_window,
    )
