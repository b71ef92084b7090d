"""``verifier_accuracy``: any registered verifier as a reward (the code verifier's with its test columns)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rewardkit._errors import ConfigError
from rewardkit.plugins.params import NAMES_ITSELF_MARK
from rewardkit.rewards.code_rewards import CodeReward
from rewardkit.rewards.infrastructure import DEFAULT_MAX_RATE, DEFAULT_WINDOW
from rewardkit.rewards.verifier_rewards import DEFAULT_REFERENCE_KEYS, VerifierReward


def verifier_accuracy(
    verifier: str,
    *,
    reference_key: str | Sequence[str] = DEFAULT_REFERENCE_KEYS,
    context_keys: Mapping[str, str] | None = None,
    value: str = "score",
    turns: str = "final",
    max_infrastructure_failure_rate: float | None = DEFAULT_MAX_RATE,
    infrastructure_failure_window: int = DEFAULT_WINDOW,
    **verifier_params: Any,
) -> VerifierReward:
    """Any registered verifier (a plugin's too) as a reward: the verdict score per row against its reference.

    Every other parameter is the verifier's own, checked now against its declared types and ranges;
    ``context_keys`` maps verifier context names to dataset columns (``{options: choices}``);
    ``value: correct`` pays 1.0/0.0 instead of the verdict's partial credit;
    ``max_infrastructure_failure_rate`` and ``infrastructure_failure_window`` say when rows the system failed
    to judge stop the run (see :class:`VerifierReward`).

    The reward is named after its verifier (``math``, ``code``), so its components, statuses and TRL
    metrics are logged under that name; a spec gives two terms on one verifier ``math`` and ``math_2``.
    """
    if not isinstance(verifier, str) or not verifier:
        raise ConfigError(f"reward 'verifier_accuracy': verifier must be a registered verifier name, got {verifier!r}")
    if verifier == "code":  # the code verifier also reads the row's other test columns
        return CodeReward(
            verifier,
            verifier_params=verifier_params,
            reference_key=reference_key,
            context_keys=context_keys,
            value=value,
            turns=turns,
            max_infrastructure_failure_rate=max_infrastructure_failure_rate,
            infrastructure_failure_window=infrastructure_failure_window,
        )
    return VerifierReward(
        verifier,
        verifier,
        verifier_params=verifier_params,
        reference_key=reference_key,
        context_keys=context_keys,
        value=value,
        turns=turns,
        max_infrastructure_failure_rate=max_infrastructure_failure_rate,
        infrastructure_failure_window=infrastructure_failure_window,
    )


setattr(verifier_accuracy, NAMES_ITSELF_MARK, True)
