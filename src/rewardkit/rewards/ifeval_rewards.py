"""The instruction-following reward: the ``ifeval`` verifier on a row's instructions.

The reference is google/IFEval's ``instruction_id_list`` (its ``kwargs`` column passed along) or
open-instruct's ``ground_truth``; the row's prompt goes along too, for ``combination:repeat_prompt`` rows
whose kwargs do not spell out the prompt.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rewardkit.rewards.infrastructure import DEFAULT_MAX_RATE, DEFAULT_WINDOW
from rewardkit.rewards.inputs import Batch, prompt_text
from rewardkit.rewards.verifier_rewards import VerifierReward

IFEVAL_REFERENCE_KEYS = ("instruction_id_list", "ground_truth")


class IFEvalReward(VerifierReward):
    """A :class:`VerifierReward` on the ``ifeval`` verifier that hands it each row's kwargs and prompt."""

    def _context(self, batch: Batch, row: int) -> dict[str, Any]:
        context = super()._context(batch, row)
        if "prompt" not in context and row < len(batch.prompts):
            prompt = prompt_text(batch.prompts[row])
            if prompt is not None:
                context["prompt"] = prompt  # TRL passes the prompt column as the prompts, not as a column
        return context


def ifeval_accuracy(
    *,
    reference_key: str | Sequence[str] = IFEVAL_REFERENCE_KEYS,
    kwargs_key: str = "kwargs",
    context_keys: Mapping[str, str] | None = None,
    turns: str = "final",
    max_infrastructure_failure_rate: float | None = DEFAULT_MAX_RATE,
    infrastructure_failure_window: int = DEFAULT_WINDOW,
    **verifier_params: Any,
) -> IFEvalReward:
    """1.0 when the completion follows every instruction of its row (``aggregate: fraction``: the share it
    follows); ``mode: loose`` for IFEval's loose reading. A row naming an unknown instruction gets None."""
    return IFEvalReward(
        "ifeval_accuracy",
        "ifeval",
        verifier_params=verifier_params,
        reference_key=reference_key,
        context_keys={"kwargs": kwargs_key, **(context_keys or {})},
        turns=turns,
        max_infrastructure_failure_rate=max_infrastructure_failure_rate,
        infrastructure_failure_window=infrastructure_failure_window,
    )
