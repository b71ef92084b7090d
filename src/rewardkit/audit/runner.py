"""Score every variant of every audit row with the reward; compare each hack with the honest wrong answer.

A hack is *credited* when its mean score over the rows exceeds the honest wrong answer's mean by more than
``threshold``: it earns more than committing to one wrong answer would, so training can learn it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from rewardkit._errors import ConfigError
from rewardkit.audit.builtin_rows import BUILTIN_ROWS
from rewardkit.audit.ifeval_variants import ifeval_variants
from rewardkit.audit.judge_variants import judge_variants
from rewardkit.audit.length_variants import length_variants
from rewardkit.audit.tool_call_variants import tool_call_variants
from rewardkit.audit.variants import (
    CORRECT,
    VARIANTS,
    WRONG,
    Variant,
    format_hacks_in,
    format_variants,
    wrapper,
)
from rewardkit.rewards.base import Reward, mean_of
from rewardkit.rewards.code_rewards import CODE_REFERENCE_KEYS
from rewardkit.rewards.inputs import Batch
from rewardkit.rewards.length_budget import LengthBudget

KINDS = ("math", "mcq", "code", "format", "length", "judge", "tool_call", "ifeval")
ALL_VARIANTS = {
    **VARIANTS,
    "length": length_variants,
    "judge": judge_variants,
    "tool_call": tool_call_variants,
    "ifeval": ifeval_variants,
}
VERIFIER_KINDS = {
    "math": "math",
    "mcq": "mcq",
    "code": "code",
    "judge": "judge",
    "hybrid": "judge",
    "rubric": "judge",
    "tool_call": "tool_call",
    "ifeval": "ifeval",
}


@dataclass
class VariantResult:
    kind: str
    name: str
    scores: list[float | None]
    statuses: Counter[str] = field(default_factory=Counter)
    example: str = ""
    baseline: list[float | None] = field(default_factory=list)  # the honest wrong answer's score, row by row

    @property
    def mean(self) -> float | None:
        return mean_of(self.scores)

    @property
    def is_hack(self) -> bool:
        return self.name not in (CORRECT, WRONG)

    def rows_above(self, threshold: float) -> int:
        return sum(
            1
            for s, b in zip(self.scores, self.baseline, strict=True)
            if s is not None and s > (b if b is not None else 0.0) + threshold
        )


@dataclass
class AuditResult:
    reward: str
    threshold: float
    results: list[VariantResult]

    def baseline(self, kind: str, name: str = WRONG) -> float | None:
        found = [r for r in self.results if r.kind == kind and r.name == name]
        return found[0].mean if found else None

    def credited(self) -> list[VariantResult]:
        """The hacks whose mean beats the honest wrong answer's by more than the threshold, and the honest
        wrong answer itself where it earns as much as the honest correct one (and more than the threshold):
        such a reward pays for any answer, so nothing needs hacking."""
        out = []
        for r in self.results:
            wrong, correct = self.baseline(r.kind), self.baseline(r.kind, CORRECT)
            if r.mean is None:
                continue
            beats_wrong = r.is_hack and r.mean > (wrong or 0.0) + self.threshold
            pays_wrong = r.name == WRONG and correct is not None and r.mean >= correct and r.mean > self.threshold
            if beats_wrong or pays_wrong:
                out.append(r)
        return out

    def to_dict(self) -> dict[str, Any]:
        credited = {(r.kind, r.name) for r in self.credited()}
        return {
            "reward": self.reward,
            "threshold": self.threshold,
            "credited": len(credited),
            "variants": [
                {
                    "kind": r.kind,
                    "variant": r.name,
                    "mean": r.mean,
                    "scores": r.scores,
                    "baseline_wrong": self.baseline(r.kind),
                    "credited": (r.kind, r.name) in credited,
                    "rows_above_wrong": r.rows_above(self.threshold),
                    "statuses": dict(r.statuses),
                    "example": r.example,
                }
                for r in self.results
            ],
        }


def leaves(reward: Any) -> list[Any]:
    from rewardkit.scoring.loading import reward_leaves

    return list(reward_leaves(reward))


def detect_kinds(reward: Reward) -> list[str]:
    """The kinds of hack that apply: one per verifier the reward uses; ``format`` for a tag reward alone."""
    if length_budgets(reward):  # its correctness term's hacks run on budgeted rows, with the budget's own
        return ["length"]
    found: list[str] = []
    for leaf in leaves(reward):
        kind = VERIFIER_KINDS.get(getattr(leaf, "verifier_name", None) or "")
        if kind and kind not in found:
            found.append(kind)
    if not found and format_tags(reward):  # with a verifier term, format hacks join that kind's rows
        found.append("format")
    return found


def length_budgets(reward: Any) -> list[LengthBudget]:
    """The ``length_budget`` terms of a reward, at any depth."""
    if isinstance(reward, LengthBudget):
        return [reward]
    all_terms = getattr(reward, "all_terms", None)
    if callable(all_terms):
        return [found for term in all_terms() for found in length_budgets(term.reward)]
    inner = getattr(reward, "inner", None)
    return length_budgets(inner) if isinstance(inner, Reward) else []


def with_budget(reward: Reward, row: dict[str, Any]) -> dict[str, Any]:
    """A built-in length row with its budget where the reward reads it: its column, else L1's prompt phrase."""
    row = dict(row)
    if "budget" not in row:
        return row
    for term in length_budgets(reward):
        if term.budgets.budget_key:
            row[term.budgets.budget_key] = row["budget"]
        else:
            row["prompt"] = f"{row['prompt']} Think for {row['budget']} tokens."
    return row


def format_tags(reward: Reward) -> list[str] | None:
    for leaf in leaves(reward):
        tags = getattr(leaf, "tags", None)
        if isinstance(tags, list) and tags and all(isinstance(t, str) for t in tags):
            return tags
    return None


def infer_kinds(data: list[dict[str, Any]]) -> list[str]:
    """The kinds the rows are (their ``task`` column, else their columns), for a reward with no verifier term:
    its rows are audited with that kind's hacks (and the format hacks when it has a tag term)."""
    found: list[str] = []
    for row in data:
        kind = row_kind(row, ["math", "mcq", "code", "ifeval"])
        if kind is not None and kind not in found:
            found.append(kind)
    return found


def row_kind(row: dict[str, Any], kinds: list[str]) -> str | None:
    if row.get("task") in kinds:
        return str(row["task"])
    for kind, present in (
        ("ifeval", "instruction_id_list" in row or _is_ifeval_truth(row.get("ground_truth"))),
        ("tool_call", "tools" in row or "ground_truth" in row or "answer" in row),
        ("code", any(key in row for key in CODE_REFERENCE_KEYS if key != "answer")),
        ("mcq", "options" in row or "choices" in row),
        ("length", "budget" in row or "num_tokens" in row),
        ("math", "answer" in row or "solution" in row),
        ("judge", "answer" in row or "solution" in row),
    ):
        if present and kind in kinds:
            return kind
    return "format" if kinds == ["format"] else None


def _is_ifeval_truth(value: Any) -> bool:
    """Whether a ``ground_truth`` cell is open-instruct's instruction list (JSON naming instruction ids)."""
    return isinstance(value, str) and '"instruction_id' in value


def audit_rows(
    reward: Reward, kinds: list[str], data: list[dict[str, Any]] | None, max_rows: int
) -> dict[str, list[dict[str, Any]]]:
    """The rows to audit, by kind: from ``data`` (each row's kind from its ``task`` or its columns), or the
    built-in ones."""
    if data is None:
        return {kind: [with_budget(reward, r) for r in BUILTIN_ROWS[kind]] for kind in kinds}
    by_kind: dict[str, list[dict[str, Any]]] = {k: [] for k in kinds}
    for row in data:
        kind = row_kind(row, kinds)
        if kind is not None and len(by_kind[kind]) < max_rows:
            by_kind[kind].append(row)
    if not any(by_kind.values()):
        raise ConfigError(
            f"--data has no row for the reward's kinds ({', '.join(kinds)}): a row needs 'answer' "
            f"(math), 'options' and 'answer' (mcq), a test column such as 'tests', 'input_output' or 'test_list' "
            f"(code), 'answer' or 'solution' (judge), 'answer' or 'ground_truth' calls (tool_call), "
            f"'instruction_id_list' or an instruction 'ground_truth' (ifeval), or a 'task' column"
        )
    return {k: rows for k, rows in by_kind.items() if rows}


def run_audit(
    reward: Reward,
    *,
    kinds: list[str] | None = None,
    data: list[dict[str, Any]] | None = None,
    threshold: float = 0.0,
    max_rows: int = 20,
) -> AuditResult:
    """Build every kind's variants for the rows, score them with ``reward``, and collect the results.

    The kinds are ``kinds``, else those of the reward's verifier terms (or ``format`` for a tag reward), else,
    for a reward with neither, the kinds of the ``data`` rows."""
    kinds = kinds or detect_kinds(reward) or (infer_kinds(data) if data else [])
    if not kinds:
        raise ConfigError(
            f"audit: cannot tell which hacks apply to reward {reward.name!r} (no math, mcq or code verifier term, "
            f"no tag format term, and no --data rows to tell from); name them with --kind {'/'.join(KINDS)}"
        )
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        raise ConfigError(f"audit: unknown kind(s) {', '.join(unknown)}; expected {', '.join(KINDS)}")
    tags = format_tags(reward)
    wrap = wrapper(tags)
    results: list[VariantResult] = []
    for kind, rows in audit_rows(reward, kinds, data, max_rows).items():
        per_row: list[list[Variant]] = []
        for row in rows:
            if kind == "format":
                per_row.append(format_variants(row, tags or ["think", "answer"]))
            else:
                per_row.append(ALL_VARIANTS[kind](row, wrap) + (format_hacks_in(tags, wrap) if tags else []))
        results.extend(_score_kind(reward, kind, rows, per_row))
    return AuditResult(reward.name, threshold, results)


def _score_kind(
    reward: Reward, kind: str, rows: list[dict[str, Any]], per_row: list[list[Variant]]
) -> list[VariantResult]:
    names: list[str] = []
    for variants in per_row:
        names.extend(v.name for v in variants if v.name not in names)
    flat = [(i, v) for i, variants in enumerate(per_row) for v in variants]
    columns_of = sorted({k for row in rows for k in row if k not in ("prompt", "completion")})
    batch = Batch.from_call(
        [rows[i].get("prompt", "") for i, _ in flat],
        [v.completion for _, v in flat],
        {k: [rows[i].get(k) for i, _ in flat] for k in columns_of},
    )
    scored = reward.score(batch)
    by_name: dict[str, VariantResult] = {n: VariantResult(kind, n, [None] * len(rows)) for n in names}
    for j, (i, variant) in enumerate(flat):
        result = by_name[variant.name]
        result.scores[i] = scored.values[j]
        result.example = result.example or variant.completion
        for statuses in scored.statuses.values():
            status = statuses[j]
            if status is not None:
                result.statuses[status] += 1
    wrong = by_name.get(WRONG)
    for result in by_name.values():
        result.baseline = wrong.scores if wrong is not None else [0.0] * len(rows)
    return list(by_name.values())
