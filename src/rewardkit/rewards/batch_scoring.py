"""Score a list of samples with a reward, in batches, and summarise the result."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from rewardkit._errors import ConfigError
from rewardkit.rewards.base import Reward, Scored, mean_of
from rewardkit.rewards.batch import Batch
from rewardkit.verifiers.verdict import HEDGED, TIMEOUT


@dataclass
class ScoreSummary:
    """Totals over a scoring run: means per component, verdict statuses, throughput."""

    samples: int = 0
    seconds: float = 0.0
    reward_mean: float | None = None
    not_applicable: int = 0
    component_means: dict[str, float | None] = field(default_factory=dict)
    component_counts: dict[str, int] = field(default_factory=dict)
    statuses: Counter = field(default_factory=Counter)

    @property
    def samples_per_second(self) -> float:
        return self.samples / self.seconds if self.seconds > 0 else float("inf")

    @property
    def hedged(self) -> int:
        return self.statuses.get(HEDGED, 0)

    @property
    def timeouts(self) -> int:
        return self.statuses.get(TIMEOUT, 0)

    def to_dict(self) -> dict[str, Any]:
        return {
            "samples": self.samples,
            "seconds": round(self.seconds, 4),
            "samples_per_second": round(self.samples_per_second, 2),
            "reward_mean": self.reward_mean,
            "not_applicable": self.not_applicable,
            "component_means": self.component_means,
            "component_counts": self.component_counts,
            "statuses": dict(self.statuses),
            "hedged": self.hedged,
            "timeouts": self.timeouts,
        }


def _batch_of(rows: Sequence[dict[str, Any]], completion_key: str, prompt_key: str) -> Batch:
    missing = [i for i, row in enumerate(rows) if completion_key not in row]
    if missing:
        raise ConfigError(
            f"sample {missing[0]} has no {completion_key!r} field (set --completion-key); "
            f"its fields: {', '.join(rows[missing[0]]) or '(none)'}"
        )
    keys: dict[str, None] = {}
    for row in rows:
        keys.update(dict.fromkeys(k for k in row if k not in (completion_key, prompt_key)))
    columns = {k: [row.get(k) for row in rows] for k in keys}
    return Batch.from_call([row.get(prompt_key) for row in rows], [row[completion_key] for row in rows], columns)


def scored_row(scored: Scored, i: int) -> dict[str, Any]:
    """The reward fields of row ``i``: total, components, and the first verifier status/extracted answer."""
    verdicts = {
        label: {"status": statuses[i], "extracted": scored.extracted.get(label, [None] * (i + 1))[i]}
        for label, statuses in scored.statuses.items()
        if statuses[i] is not None
    }
    first = next(iter(verdicts.values()), {"status": None, "extracted": None})
    return {
        "reward": scored.values[i],
        "components": {label: values[i] for label, values in scored.components.items()},
        "status": first["status"],
        "extracted": first["extracted"],
        "verdicts": verdicts,
    }


def score_rows(
    reward: Reward,
    rows: Sequence[dict[str, Any]],
    *,
    batch_size: int = 64,
    workers: int = 1,
    completion_key: str = "completion",
    prompt_key: str = "prompt",
    on_batch: Callable[[int], None] | None = None,
) -> tuple[list[dict[str, Any]], ScoreSummary]:
    """Each row's reward fields (see :func:`scored_row`), in input order, and the run's summary.

    ``workers`` batches are scored at once on threads; verifiers that own worker processes (math, code)
    serve them all from one pool.
    """
    if batch_size < 1 or workers < 1:
        raise ConfigError(f"batch_size and workers must be >= 1, got {batch_size} and {workers}")
    chunks = [rows[i : i + batch_size] for i in range(0, len(rows), batch_size)]

    def run(chunk: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        scored = reward.score(_batch_of(chunk, completion_key, prompt_key))
        out = [scored_row(scored, i) for i in range(len(chunk))]
        if on_batch is not None:
            on_batch(len(chunk))
        return out

    start = time.perf_counter()
    if workers == 1 or len(chunks) <= 1:
        results = [run(c) for c in chunks]
    else:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(run, chunks))
    seconds = time.perf_counter() - start
    out = [r for chunk in results for r in chunk]
    return out, summarise(out, seconds)


def summarise(scored: Sequence[dict[str, Any]], seconds: float) -> ScoreSummary:
    summary = ScoreSummary(samples=len(scored), seconds=seconds)
    summary.reward_mean = mean_of([r["reward"] for r in scored])
    summary.not_applicable = sum(r["reward"] is None for r in scored)
    labels: dict[str, None] = {}
    for r in scored:
        labels.update(dict.fromkeys(r["components"]))
    for label in labels:
        values = [r["components"].get(label) for r in scored]
        summary.component_means[label] = mean_of(values)
        summary.component_counts[label] = sum(v is not None for v in values)
    for r in scored:
        for verdict in r["verdicts"].values():
            summary.statuses[verdict["status"]] += 1
    return summary
