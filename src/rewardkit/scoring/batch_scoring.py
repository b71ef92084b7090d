"""Score a list of samples with a reward, in batches, and summarise the result."""

from __future__ import annotations

import math
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from rewardkit._errors import ConfigError
from rewardkit.rewards.base import Reward, scored_row
from rewardkit.rewards.inputs import Batch
from rewardkit.verifiers.verdict import Status, is_infrastructure_failure


@dataclass
class ScoreSummary:
    """Totals over a scoring run: means per component, verdict statuses, throughput.

    ``statuses`` counts samples: a sample is counted once under each status that any of its verifier
    terms gave (two code terms that both time out on a sample count one timeout). ``term_statuses`` counts
    per verifier term. ``seconds`` covers the rows scored in this run (``resumed`` rows were read back from
    an earlier, interrupted run; they count in the means and statuses, not in the throughput).
    ``infrastructure_failures`` counts samples a verifier term failed to judge for the system's reasons
    (``sandbox_error``, ``error``, ``invalid_reference``, ``judge_error``): their reward is None, not 0.
    """

    samples: int = 0
    seconds: float = 0.0
    reward_mean: float | None = None
    not_applicable: int = 0
    component_means: dict[str, float | None] = field(default_factory=dict)
    component_counts: dict[str, int] = field(default_factory=dict)
    statuses: Counter[str] = field(default_factory=Counter)
    term_statuses: dict[str, Counter[str]] = field(default_factory=dict)
    resumed: int = 0
    skipped: int = 0
    infrastructure_failures: int = 0

    @property
    def samples_per_second(self) -> float:
        scored = self.samples - self.resumed
        return scored / self.seconds if self.seconds > 0 else float("inf")

    @property
    def hedged(self) -> int:
        return self.statuses.get(Status.HEDGED, 0)

    @property
    def timeouts(self) -> int:
        return self.statuses.get(Status.TIMEOUT, 0)

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
            "term_statuses": {label: dict(c) for label, c in self.term_statuses.items()},
            "hedged": self.hedged,
            "timeouts": self.timeouts,
            "infrastructure_failures": self.infrastructure_failures,
            "resumed": self.resumed,
            "skipped": self.skipped,
        }


class SummaryBuilder:
    """Folds scored rows into a :class:`ScoreSummary` one at a time, keeping only running totals."""

    def __init__(self) -> None:
        self.samples = 0
        self.reward_sum = 0.0
        self.reward_count = 0
        self.not_applicable = 0
        self.component_sums: dict[str, float] = {}
        self.component_counts: dict[str, int] = {}
        self.statuses: Counter[str] = Counter()
        self.term_statuses: dict[str, Counter[str]] = {}
        self.infrastructure_failures = 0

    def add(self, row: dict[str, Any]) -> None:
        self.samples += 1
        value = row.get("reward")
        if value is None:
            self.not_applicable += 1
        elif not math.isnan(value):
            self.reward_sum += value
            self.reward_count += 1
        for label, v in (row.get("components") or {}).items():
            self.component_sums.setdefault(label, 0.0)
            self.component_counts.setdefault(label, 0)
            if v is not None and not math.isnan(v):
                self.component_sums[label] += v
                self.component_counts[label] += 1
        seen: set[str] = set()
        for label, verdict in (row.get("verdicts") or {}).items():
            status = verdict["status"]
            self.term_statuses.setdefault(label, Counter())[status] += 1
            seen.add(status)
        self.statuses.update(seen)
        self.infrastructure_failures += any(is_infrastructure_failure(status) for status in seen)

    def result(self, seconds: float, *, resumed: int = 0, skipped: int = 0) -> ScoreSummary:
        return ScoreSummary(
            samples=self.samples,
            seconds=seconds,
            reward_mean=self.reward_sum / self.reward_count if self.reward_count else None,
            not_applicable=self.not_applicable,
            component_means={
                k: (s / self.component_counts[k] if self.component_counts[k] else None)
                for k, s in self.component_sums.items()
            },
            component_counts=dict(self.component_counts),
            statuses=self.statuses,
            term_statuses=self.term_statuses,
            resumed=resumed,
            skipped=skipped,
            infrastructure_failures=self.infrastructure_failures,
        )


def batch_of(rows: Sequence[dict[str, Any]], completion_key: str, prompt_key: str) -> Batch:
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
        scored = reward.score(batch_of(chunk, completion_key, prompt_key))
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


def summarise(scored: Iterable[dict[str, Any]], seconds: float) -> ScoreSummary:
    builder = SummaryBuilder()
    for row in scored:
        builder.add(row)
    return builder.result(seconds)


def score_chunks(
    reward: Reward,
    chunks: Iterable[Sequence[dict[str, Any]]],
    *,
    workers: int = 1,
    completion_key: str = "completion",
    prompt_key: str = "prompt",
) -> Iterator[tuple[Sequence[dict[str, Any]], list[dict[str, Any]]]]:
    """Each chunk with its rows' reward fields (see :func:`scored_row`), in input order, as they finish.

    At most ``2 * workers`` chunks are read ahead and in flight, so memory stays bounded however long
    ``chunks`` is; a caller that writes each yielded chunk keeps everything scored so far if interrupted.
    """
    if workers < 1:
        raise ConfigError(f"workers must be >= 1, got {workers}")

    def run(chunk: Sequence[dict[str, Any]]) -> tuple[Sequence[dict[str, Any]], list[dict[str, Any]]]:
        scored = reward.score(batch_of(chunk, completion_key, prompt_key))
        return chunk, [scored_row(scored, i) for i in range(len(chunk))]

    if workers == 1:
        for chunk in chunks:
            yield run(chunk)
        return
    pending: deque[Future[Any]] = deque()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        try:
            for chunk in chunks:
                pending.append(pool.submit(run, chunk))
                if len(pending) >= 2 * workers:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for future in pending:
                future.cancel()
