"""The code rewards: a row's tests in its dataset's own layout, scored by the code verifier.

Besides the test column (``reference_key``), each row hands the verifier the columns a dataset layout needs
under their standard names (``entry_point``, ``fn_name``, ``metadata``, ``test_setup_code``,
``test_imports``, ``private_test_cases``, ``private_tests``, ``generated_tests``: the verifier's
``CONTEXT_COLUMNS``), the prompt (HumanEval's ``prompt`` is the code a completion continues) and the name of
the column the reference came from. ``context_keys`` maps those names to renamed columns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rewardkit.rewards.infrastructure import DEFAULT_MAX_RATE, DEFAULT_WINDOW
from rewardkit.rewards.inputs import Batch
from rewardkit.rewards.verifier_rewards import VerifierReward
from rewardkit.verifiers.code_tests.formats import CONTEXT_COLUMNS

CODE_REFERENCE_KEYS = (
    "tests",
    "test_list",
    "input_output",
    "public_test_cases",
    "public_tests",
    "verification_info",
    "official_tests",
    "test",
    "answer",
)


class CodeReward(VerifierReward):
    """A :class:`VerifierReward` on the ``code`` verifier that passes each row's dataset columns along."""

    def __init__(
        self,
        name: str,
        *,
        verifier_params: Mapping[str, Any] | None = None,
        reference_key: str | Sequence[str] = CODE_REFERENCE_KEYS,
        context_keys: Mapping[str, str] | None = None,
        value: str = "score",
        turns: str = "final",
        max_infrastructure_failure_rate: float | None = DEFAULT_MAX_RATE,
        infrastructure_failure_window: int = DEFAULT_WINDOW,
    ) -> None:
        super().__init__(
            name,
            "code",
            verifier_params=verifier_params,
            reference_key=reference_key,
            context_keys={**{c: c for c in CONTEXT_COLUMNS}, "prompt": "prompt", **(context_keys or {})},
            value=value,
            turns=turns,
            max_infrastructure_failure_rate=max_infrastructure_failure_rate,
            infrastructure_failure_window=infrastructure_failure_window,
        )

    def _context(self, batch: Batch, row: int) -> dict[str, Any]:
        context = super()._context(batch, row)
        if self.context_keys.get("prompt") == "prompt" and "prompt" not in context:
            prompt = batch.prompts[row] if row < len(batch.prompts) else None
            if prompt is not None:
                context["prompt"] = prompt  # TRL passes the prompt column as the prompts, not as a column
        keys = [self.reference_key] if isinstance(self.reference_key, str) else list(self.reference_key)
        for key in keys:
            column = batch.columns.get(key)
            if column is not None and column[row] is not None and column[row] != "":
                context["reference_column"] = key
                break
        return context


def code_pass_rate(
    *,
    reference_key: str | Sequence[str] = CODE_REFERENCE_KEYS,
    context_keys: Mapping[str, str] | None = None,
    sandbox: str = "local",
    turns: str = "final",
    max_infrastructure_failure_rate: float | None = DEFAULT_MAX_RATE,
    infrastructure_failure_window: int = DEFAULT_WINDOW,
    **verifier_params: Any,
) -> CodeReward:
    """Fraction of the row's tests the completion's program passes (partial credit)."""
    return CodeReward(
        "code_pass_rate",
        verifier_params={"sandbox": sandbox, **verifier_params},
        reference_key=reference_key,
        context_keys=context_keys,
        turns=turns,
        max_infrastructure_failure_rate=max_infrastructure_failure_rate,
        infrastructure_failure_window=infrastructure_failure_window,
    )


def code_all_pass(
    *,
    reference_key: str | Sequence[str] = CODE_REFERENCE_KEYS,
    context_keys: Mapping[str, str] | None = None,
    sandbox: str = "local",
    turns: str = "final",
    max_infrastructure_failure_rate: float | None = DEFAULT_MAX_RATE,
    infrastructure_failure_window: int = DEFAULT_WINDOW,
    **verifier_params: Any,
) -> CodeReward:
    """1.0 when the program passes every test of the row, else 0.0."""
    return CodeReward(
        "code_all_pass",
        verifier_params={"sandbox": sandbox, **verifier_params},
        reference_key=reference_key,
        context_keys=context_keys,
        value="correct",
        turns=turns,
        max_infrastructure_failure_rate=max_infrastructure_failure_rate,
        infrastructure_failure_window=infrastructure_failure_window,
    )
