"""The "hybrid" verifier: a rule verifier first (math, mcq, ...), the judge only where the rule could not decide.

The rule **could not decide** when its verdict's status is one of ``judge_on`` (default: ``no_answer`` —
it found no answer it can read, ``parse_error`` — it found one but could not parse it, and
``invalid_reference`` — it cannot read the reference). Every other status is the rule's decision and is
kept: a plain wrong answer (``ok``, 0.0), a hedge, a timeout, an invalid option. A rule ``error`` (a
verifier bug) stays an infrastructure failure rather than being handed to the judge. Each verdict's
details say ``decided_by`` (``rule`` or ``judge``) and, when the judge decided, ``rule_status``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rewardkit._errors import ConfigError
from rewardkit.verifiers.base import Verifier, check_batch
from rewardkit.verifiers.judge.config import JudgeConfig
from rewardkit.verifiers.judge.verifier import JudgeVerifier, usage_metrics
from rewardkit.verifiers.verdict import Status, Verdict

DEFAULT_JUDGE_ON = (str(Status.NO_ANSWER), str(Status.PARSE_ERROR), str(Status.INVALID_REFERENCE))
NEVER_JUDGED = frozenset({"ok", "error"})  # a rule's decision, and a rule's bug: never the judge's to take


@dataclass(frozen=True)
class HybridConfig:
    """``rule``: a registered verifier name; ``rule_params``: its parameters; ``judge``: the judge's
    parameters (``base_url``, ``model``, ...); ``judge_on``: the rule statuses that hand a row to the judge."""

    rule: str
    judge: Mapping[str, Any]
    rule_params: Mapping[str, Any] = field(default_factory=dict)
    judge_on: Sequence[str] = DEFAULT_JUDGE_ON

    def __post_init__(self) -> None:
        if not isinstance(self.rule, str) or not self.rule or self.rule in ("hybrid", "judge"):
            raise ConfigError(f"hybrid: rule must name a rule verifier such as 'math' or 'mcq', got {self.rule!r}")
        if not isinstance(self.judge, Mapping):
            raise ConfigError(f"hybrid: judge must be a mapping of judge parameters, got {self.judge!r}")
        if not isinstance(self.rule_params, Mapping):
            raise ConfigError(f"hybrid: rule_params must be a mapping, got {self.rule_params!r}")
        if isinstance(self.judge_on, str) or not all(isinstance(s, str) for s in self.judge_on):
            raise ConfigError(f"hybrid: judge_on must be a list of verdict statuses, got {self.judge_on!r}")
        wrong = sorted(set(self.judge_on) & NEVER_JUDGED)
        if wrong:
            raise ConfigError(
                f"hybrid: judge_on must not contain {', '.join(wrong)}: 'ok' is the rule's decision and "
                f"'error' a verifier failure"
            )
        try:
            JudgeConfig(**dict(self.judge))
        except TypeError as exc:
            raise ConfigError(f"hybrid: bad judge parameters: {exc}") from None


class HybridVerifier(Verifier):
    """A rule verifier, and the judge for the rows the rule could not decide (see the module docstring)."""

    name = "hybrid"
    params_schema = HybridConfig
    uses_question = True

    def __init__(
        self,
        *,
        rule: str,
        judge: Mapping[str, Any],
        rule_params: Mapping[str, Any] | None = None,
        judge_on: Sequence[str] = DEFAULT_JUDGE_ON,
    ) -> None:
        self.config = HybridConfig(rule, dict(judge), dict(rule_params or {}), tuple(judge_on))
        from rewardkit.verifiers.lookup import get_verifier

        self.rule = get_verifier(rule, **dict(self.config.rule_params))
        try:
            self.judge = JudgeVerifier(**dict(self.config.judge))
        except BaseException:
            self.rule.close()
            raise
        self.batch_threads = self.judge.batch_threads

    def _verify(self, completion: Any, reference: Any, **context: Any) -> Verdict:
        return self.verify_batch([completion], [reference], [context])[0]

    def verify_batch(
        self,
        completions: Sequence[Any],
        references: Sequence[Any],
        contexts: Sequence[Mapping[str, Any] | None] | None = None,
    ) -> list[Verdict]:
        """The rule on the whole batch (its own batching), then one judge batch for the undecided rows."""
        contexts = check_batch(completions, references, contexts)
        rule_contexts = [{k: v for k, v in (x or {}).items() if k != "question"} for x in contexts]
        ruled = self.rule.verify_batch(completions, references, rule_contexts)
        undecided = [i for i, v in enumerate(ruled) if str(v.status) in self.config.judge_on]
        out = [_tagged(v, "rule") for v in ruled]
        if undecided:
            judged = self.judge.verify_batch(
                [completions[i] for i in undecided],
                [references[i] for i in undecided],
                [contexts[i] for i in undecided],
            )
            for i, verdict in zip(undecided, judged, strict=True):
                out[i] = _tagged(verdict, "judge", rule_status=str(ruled[i].status))
        return out

    def batch_metrics(self, verdicts: Sequence[Verdict]) -> dict[str, float]:
        """The judge's usage over the rows it decided, and the share of rows the judge decided."""
        judged = [v for v in verdicts if v.details.get("decided_by") == "judge"]
        metrics = usage_metrics(judged)
        if verdicts:
            metrics["judge_share"] = len(judged) / len(verdicts)
        return metrics

    def close(self) -> None:
        self.rule.close()
        self.judge.close()


def _tagged(verdict: Verdict, decided_by: str, **extra: Any) -> Verdict:
    details = {**verdict.details, "decided_by": decided_by, **extra}
    return Verdict(verdict.score, verdict.correct, verdict.status, verdict.extracted, details)
