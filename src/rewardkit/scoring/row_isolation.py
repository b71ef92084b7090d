"""A reward call in which one row's failure costs only that row: the batch is halved until the rows that
raise are found; they get no value (None) and status ``error``, the others their values.

In-process a reward's own error stops the call (``RewardError``); a service scoring many trainers' rows
must not fail a whole batch for one row. A ConfigError (the batch lacks a column the reward reads) is the
batch's, not a row's, and an InfrastructureError (most recent rows failed for the system's reasons: the run
is broken) is the reward's; both are raised as they are.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from rewardkit._errors import ConfigError, InfrastructureError
from rewardkit.rewards.base import Scored
from rewardkit.rewards.inputs import Batch
from rewardkit.verifiers.verdict import Status


@dataclass
class PartialScored(Scored):
    """A result in which some rows could not be scored: ``errors`` maps each such row to why."""

    errors: dict[int, str] = field(default_factory=dict, kw_only=True)  # never positional: Scored grows fields


@dataclass(frozen=True)
class Labels:
    """The component, status and extracted-answer labels a reward reports (what a failed row is given)."""

    components: tuple[str, ...] = ()
    statuses: tuple[str, ...] = ()
    extracted: tuple[str, ...] = ()

    @classmethod
    def of(cls, scored: Scored) -> Labels:
        return cls(tuple(scored.components), tuple(scored.statuses), tuple(scored.extracted))


def slice_scored(scored: Scored, start: int, stop: int) -> Scored:
    """Rows ``start:stop`` of a result (with their errors, renumbered)."""
    part = Scored(
        values=scored.values[start:stop],
        components={k: v[start:stop] for k, v in scored.components.items()},
        statuses={k: v[start:stop] for k, v in scored.statuses.items()},
        extracted={k: v[start:stop] for k, v in scored.extracted.items()},
    )
    errors = getattr(scored, "errors", None)
    if errors:
        kept = {i - start: e for i, e in errors.items() if start <= i < stop}
        if kept:
            return PartialScored(part.values, part.components, part.statuses, part.extracted, errors=kept)
    return part


def concat_scored(parts: Sequence[Scored], labels: Labels) -> Scored:
    """One result of ``parts`` in order; a label some part lacks is filled with None for its rows."""
    components = list(dict.fromkeys([*labels.components, *(k for p in parts for k in p.components)]))
    statuses = list(dict.fromkeys([*labels.statuses, *(k for p in parts for k in p.statuses)]))
    extracted = list(dict.fromkeys([*labels.extracted, *(k for p in parts for k in p.extracted)]))
    out = PartialScored(values=[v for p in parts for v in p.values])
    for name, target, source in (
        ("components", out.components, components),
        ("statuses", out.statuses, statuses),
        ("extracted", out.extracted, extracted),
    ):
        for label in source:
            target[label] = [v for p in parts for v in getattr(p, name).get(label, [None] * len(p.values))]
    offset = 0
    for part in parts:
        for i, error in getattr(part, "errors", {}).items():
            out.errors[offset + i] = error
        offset += len(part.values)
    return out


def failed_rows(n: int, labels: Labels, error: str) -> PartialScored:
    """``n`` rows that could not be scored: no value, no component, status ``error`` in every verifier term."""
    return PartialScored(
        values=[None] * n,
        components={k: [None] * n for k in labels.components},
        statuses={k: [str(Status.ERROR)] * n for k in labels.statuses},
        extracted={k: [None] * n for k in labels.extracted},
        errors=dict.fromkeys(range(n), error),
    )


def score_isolating_rows(score: Callable[[Batch], Scored], batch: Batch, labels: Labels) -> Scored:
    """``score(batch)``; when it raises (but for a ConfigError or an InfrastructureError), the two halves are
    scored the same way, down to single rows, so only the rows that raise get :func:`failed_rows`."""
    try:
        return score(batch)
    except (ConfigError, InfrastructureError):
        raise
    except Exception as exc:  # noqa: BLE001 - a row's failure becomes that row's status, not the batch's
        if len(batch) == 1:
            return failed_rows(1, labels, f"{type(exc).__name__}: {exc}")
    middle = len(batch) // 2
    halves = [batch.subset(range(middle)), batch.subset(range(middle, len(batch)))]
    return concat_scored([score_isolating_rows(score, half, labels) for half in halves], labels)


def take_rows(scored: Scored, rows: Sequence[int]) -> Scored:
    """The result's ``rows``, in that order (with their errors, renumbered)."""
    position = {row: i for i, row in enumerate(rows)}
    part = Scored(
        values=[scored.values[r] for r in rows],
        components={k: [v[r] for r in rows] for k, v in scored.components.items()},
        statuses={k: [v[r] for r in rows] for k, v in scored.statuses.items()},
        extracted={k: [v[r] for r in rows] for k, v in scored.extracted.items()},
    )
    errors = {position[i]: e for i, e in getattr(scored, "errors", {}).items() if i in position}
    if errors:
        return PartialScored(part.values, part.components, part.statuses, part.extracted, errors=errors)
    return part


def score_isolating_groups(
    score: Callable[[Batch], Scored], batch: Batch, labels: Labels, groups: Sequence[Sequence[int]]
) -> Scored:
    """:func:`score_isolating_rows` for a reward that compares a prompt's rows: halved at group boundaries, so a
    group is scored whole or fails whole (``groups``: each group's rows, as ``rewards.groups.prompt_groups``)."""
    order = [i for group in groups for i in group]
    sizes = [len(group) for group in groups]
    grouped = _isolate_groups(score, batch.subset(order), labels, sizes)
    where = {row: i for i, row in enumerate(order)}
    return take_rows(grouped, [where[i] for i in range(len(batch))])


def _isolate_groups(score: Callable[[Batch], Scored], batch: Batch, labels: Labels, sizes: Sequence[int]) -> Scored:
    try:
        return score(batch)
    except (ConfigError, InfrastructureError):
        raise
    except Exception as exc:  # noqa: BLE001 - a group's failure becomes its rows' status, not the batch's
        if len(sizes) == 1:
            return failed_rows(len(batch), labels, f"{type(exc).__name__}: {exc}")
    half = len(sizes) // 2
    middle = sum(sizes[:half])
    parts = [
        _isolate_groups(score, batch.subset(range(middle)), labels, sizes[:half]),
        _isolate_groups(score, batch.subset(range(middle, len(batch))), labels, sizes[half:]),
    ]
    return concat_scored(parts, labels)
