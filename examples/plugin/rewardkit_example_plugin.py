"""An example rewardkit plugin: one verifier, one reward and one combinator, found through entry points.

After `pip install ./examples/plugin`, every process finds them by name with no import by hand:
`rk.get_verifier("exact_text")`, `rk.get_reward("brevity")` and `combine: harmonic_mean` in a reward spec.
"""

from __future__ import annotations

from typing import Any

import rewardkit as rk


class ExactTextVerifier(rk.Verifier):
    """Full credit when the completion's text equals the reference, ignoring surrounding space (and case)."""

    def __init__(self, *, case_sensitive: bool = False) -> None:
        self.case_sensitive = case_sensitive

    def _verify(self, completion: Any, reference: Any, **context: Any) -> rk.Verdict:
        got, want = rk.completion_text(completion).strip(), str(reference).strip()
        if not got:
            return rk.Verdict(0.0, False, rk.Status.NO_ANSWER, None)
        if not self.case_sensitive:
            got, want = got.casefold(), want.casefold()
        return rk.Verdict(float(got == want), got == want, rk.Status.OK, got)


def brevity(prompts: Any, completions: list[Any], **kwargs: Any) -> list[float]:
    """A TRL reward function: 1 for an empty answer, falling towards 0 as the text grows."""
    return [1.0 / (1 + len(rk.completion_text(c))) for c in completions]


class HarmonicMean(rk.Combinator):
    """Harmonic mean of the weighted terms that apply to the row: high only when every term is high.

    Any term at or below zero makes the row 0; a row where no term applies is None.
    """

    def combine(self, row: dict[str, list[float | None]]) -> float | None:
        values = [v for v in row["terms"] if v is not None]
        if not values:
            return None
        if min(values) <= 0:
            return 0.0
        return len(values) / sum(1.0 / v for v in values)


@rk.hookimpl
def register_verifiers(register: Any) -> None:
    register("exact_text", ExactTextVerifier)


@rk.hookimpl
def register_rewards(register: Any) -> None:
    register("brevity", brevity)


@rk.hookimpl
def register_combinators(register: Any) -> None:
    register("harmonic_mean", HarmonicMean)
