"""Combinators: rewards made of other rewards (weighted sum, product, min, max, gate, clip, scale)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from rewardkit._errors import ConfigError
from rewardkit.plugins.params import check_value
from rewardkit.rewards.base import Reward, Scored, guarded_score
from rewardkit.rewards.inputs import Batch
from rewardkit.verifiers.verdict import is_infrastructure_failure

Row = list["float | None"]


@dataclass(frozen=True)
class Term:
    """One input of a combinator: a reward, the label its values are reported under, and a weight."""

    label: str
    reward: Reward
    weight: float = 1.0


@dataclass(frozen=True)
class Option:
    """A combinator's scalar setting in a spec: its type (an annotation, checked by ``plugins/params.py``),
    default, and what it means."""

    annotation: Any
    default: Any
    help: str


DROP_ROW, KEEP_SHAPING = "drop_row", "keep_shaping"
INFRASTRUCTURE_CHOICES = (DROP_ROW, KEEP_SHAPING)
#: Settings every combinator takes, whatever its own options.
SHARED_OPTIONS: dict[str, Option] = {
    "on_infrastructure_failure": Option(
        str,
        DROP_ROW,
        "drop_row: a row where a verifier term under this combinator failed for the system's reasons "
        "(sandbox_error, error, invalid_reference, judge_error) gets None; keep_shaping: the other terms still "
        "score it",
    ),
}


class Combinator(Reward):
    """A reward whose value per row combines its terms' weighted values.

    Subclasses declare ``term_fields`` (spec field → ``"one"`` or ``"many"``), ``options`` (the scalar
    settings a spec may give) and implement :meth:`combine` on one row of weighted term values, where None
    means "this term does not apply to the row". Terms are evaluated on the whole batch, once each.

    A row where a verifier term (at any depth) has an infrastructure-failure status is None as a whole:
    the shaping terms alone would pay a format bonus for a completion nobody judged. The shared option
    ``on_infrastructure_failure: keep_shaping`` keeps the other terms' values instead.
    """

    term_fields: ClassVar[dict[str, str]] = {"terms": "many"}
    options: ClassVar[dict[str, Option]] = dict(SHARED_OPTIONS)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("options", {})
        cls.options = {**own, **{k: v for k, v in SHARED_OPTIONS.items() if k not in own}}

    def __init__(self, name: str, terms: Mapping[str, Term | Sequence[Term]], **settings: Any) -> None:
        super().__init__(name)
        self.terms: dict[str, list[Term]] = {}
        for field, arity in self.term_fields.items():
            given = terms.get(field)
            if given is None:
                raise ConfigError(f"combinator {name!r} needs field {field!r}")
            listed = [given] if isinstance(given, Term) else list(given)
            if arity == "one" and len(listed) != 1:
                raise ConfigError(f"combinator {name!r}: field {field!r} takes exactly one term, got {len(listed)}")
            if arity == "many" and not listed:
                raise ConfigError(f"combinator {name!r}: field {field!r} needs at least one term")
            self.terms[field] = listed
        unknown = set(settings) - set(self.options)
        if unknown:
            raise ConfigError(
                f"combinator {name!r} got unknown settings {sorted(unknown)}; it accepts: "
                f"{', '.join(sorted(self.options)) or '(none)'}"
            )
        for key, value in settings.items():
            check_value(key, value, self.options[key].annotation, self.options[key].help)
        self.settings = {k: settings.get(k, opt.default) for k, opt in self.options.items()}
        if self.settings["on_infrastructure_failure"] not in INFRASTRUCTURE_CHOICES:
            raise ConfigError(
                f"combinator {name!r}: on_infrastructure_failure must be one of "
                f"{', '.join(INFRASTRUCTURE_CHOICES)}, got {self.settings['on_infrastructure_failure']!r}"
            )

    def all_terms(self) -> list[Term]:
        return [t for field in self.term_fields for t in self.terms[field]]

    def score(self, batch: Batch) -> Scored:
        weighted: dict[str, list[Row]] = {field: [] for field in self.term_fields}
        merged = Scored(values=[])
        for field in self.term_fields:
            for term in self.terms[field]:
                scored = guarded_score(term.reward, batch, term.label)
                if len(scored.values) != len(batch):
                    raise ConfigError(
                        f"term {term.label!r} of {self.name!r} returned {len(scored.values)} values "
                        f"for {len(batch)} completions"
                    )
                weighted[field].append([None if v is None else v * term.weight for v in scored.values])
                _merge(merged, term, scored)
        dropped = self._failed_rows(merged, len(batch))
        merged.values = [
            None
            if i in dropped
            else self._finite(self.combine({f: [vals[i] for vals in weighted[f]] for f in weighted}))
            for i in range(len(batch))
        ]
        return merged

    def _failed_rows(self, merged: Scored, n: int) -> set[int]:
        """The rows a verifier term failed to judge (infrastructure), unless this combinator keeps shaping."""
        if self.settings["on_infrastructure_failure"] == KEEP_SHAPING:
            return set()
        return {i for statuses in merged.statuses.values() for i in range(n) if is_infrastructure_failure(statuses[i])}

    @staticmethod
    def _finite(value: float | None) -> float | None:
        if value is None or math.isnan(value):
            return None
        return float(value)

    def combine(self, row: dict[str, Row]) -> float | None:
        raise NotImplementedError

    def close(self) -> None:
        for term in self.all_terms():
            term.reward.close()


def unwrap(reward: Reward) -> Reward:
    while isinstance(reward, Where):
        reward = reward.inner
    return reward


def _merge(into: Scored, term: Term, scored: Scored) -> None:
    if isinstance(unwrap(term.reward), Combinator):
        scored = scored.relabel(term.label)
    else:
        rename = {term.reward.name: term.label}
        scored = Scored(
            scored.values,
            {rename.get(k, k): v for k, v in scored.components.items()},
            {rename.get(k, k): v for k, v in scored.statuses.items()},
            {rename.get(k, k): v for k, v in scored.extracted.items()},
            {rename.get(k, k): v for k, v in scored.metrics.items()},
        )
    into.components.update(scored.components)
    into.statuses.update(scored.statuses)
    into.extracted.update(scored.extracted)
    into.metrics.update(scored.metrics)


def _present(values: Row) -> list[float]:
    return [v for v in values if v is not None]


def _reduce(values: Row, fn: Callable[[list[float]], float]) -> float | None:
    present = _present(values)
    return fn(present) if present else None


class Sum(Combinator):
    """Weighted sum of the terms that apply to the row (None when none applies)."""

    def combine(self, row: dict[str, Row]) -> float | None:
        return _reduce(row["terms"], sum)


class Product(Combinator):
    """Product of the weighted terms that apply to the row (None when none applies)."""

    def combine(self, row: dict[str, Row]) -> float | None:
        return _reduce(row["terms"], math.prod)


class Min(Combinator):
    """Smallest weighted term that applies to the row."""

    def combine(self, row: dict[str, Row]) -> float | None:
        return _reduce(row["terms"], min)


class Max(Combinator):
    """Largest weighted term that applies to the row."""

    def combine(self, row: dict[str, Row]) -> float | None:
        return _reduce(row["terms"], max)


class Gate(Combinator):
    """``then`` counts only where ``when`` reaches ``threshold``; elsewhere the value is ``otherwise``.

    A row where ``then`` does not apply is None; a row where ``when`` does not apply is not gated.
    """

    term_fields: ClassVar[dict[str, str]] = {"when": "one", "then": "one"}
    options: ClassVar[dict[str, Option]] = {
        "threshold": Option(float, 1.0, "the gate passes where the `when` term is >= this"),
        "otherwise": Option(float, 0.0, "the value where the gate fails"),
    }

    def combine(self, row: dict[str, Row]) -> float | None:
        (gate,), (value,) = row["when"], row["then"]
        if value is None:
            return None
        if gate is None or gate >= self.settings["threshold"]:
            return value
        return float(self.settings["otherwise"])


class Clip(Combinator):
    """The term's value clipped to ``[low, high]`` (either bound may be left out)."""

    term_fields: ClassVar[dict[str, str]] = {"term": "one"}
    options: ClassVar[dict[str, Option]] = {
        "low": Option(float | None, None, "lower bound (none when omitted)"),
        "high": Option(float | None, None, "upper bound (none when omitted)"),
    }

    def __init__(self, name: str, terms: Mapping[str, Any], **settings: Any) -> None:
        super().__init__(name, terms, **settings)
        low, high = self.settings["low"], self.settings["high"]
        if low is None and high is None:
            raise ConfigError(f"combinator {name!r} (clip) needs field 'low' or 'high' (a number)")
        if low is not None and high is not None and low > high:
            raise ConfigError(f"combinator {name!r} (clip): low ({low}) must not exceed high ({high})")

    def combine(self, row: dict[str, Row]) -> float | None:
        (value,) = row["term"]
        if value is None:
            return None
        low, high = self.settings["low"], self.settings["high"]
        if low is not None:
            value = max(value, low)
        if high is not None:
            value = min(value, high)
        return value


class Scale(Combinator):
    """``factor * term + offset``."""

    term_fields: ClassVar[dict[str, str]] = {"term": "one"}
    options: ClassVar[dict[str, Option]] = {
        "factor": Option(float, 1.0, "multiplier"),
        "offset": Option(float, 0.0, "added after scaling"),
    }

    def combine(self, row: dict[str, Row]) -> float | None:
        (value,) = row["term"]
        if value is None:
            return None
        factor: float = self.settings["factor"]
        offset: float = self.settings["offset"]
        return factor * value + offset


class Where(Reward):
    """A reward applied only to rows whose columns match ``conditions``; None on the others.

    ``conditions`` maps a column to a value or a list of accepted values, e.g. ``{"task": "math"}``.
    The inner reward only sees the matching rows, so a mixed dataset costs each verifier only its own rows.
    Until some row has matched, it warns once naming the values the column had (``where: {task: Math}``
    against a column of ``math`` would otherwise silently switch the term off): at once when a value the
    column had differs from an accepted one only in case, spaces or type (``"1"`` for ``1``), else once
    ``UNMATCHED_ROWS_BEFORE_WARNING`` rows went by without a match (a batch of a mixed dataset may hold
    none of this term's rows by chance).
    """

    UNMATCHED_ROWS_BEFORE_WARNING = 256

    def __init__(self, inner: Reward, conditions: Mapping[str, Any]) -> None:
        super().__init__(inner.name)
        self.inner = inner
        self.conditions = {k: list(v) if isinstance(v, (list, tuple, set)) else [v] for k, v in conditions.items()}
        self._matched = False
        self._warned = False
        self._unmatched_rows = 0
        self._seen: dict[str, set[str]] = {c: set() for c in self.conditions}

    def _warn_unmatched(self, batch: Batch) -> None:
        if self._matched or self._warned or not len(batch):
            return
        self._unmatched_rows += len(batch)
        near_miss = False
        for column, accepted in self.conditions.items():
            wanted = {_loose(a) for a in accepted}
            for value in batch.columns[column]:
                seen = self._seen[column]
                if len(seen) < 10:
                    seen.add(repr(value))
                near_miss = near_miss or _loose(value) in wanted
        if not near_miss and self._unmatched_rows < self.UNMATCHED_ROWS_BEFORE_WARNING:
            return
        self._warned = True
        had = "; ".join(f"{c!r} had {', '.join(sorted(self._seen[c]))}" for c in self.conditions)
        wanted_text = ", ".join(f"{c} in {accepted!r}" for c, accepted in self.conditions.items())
        why = (
            "a value differs from an accepted one only in case, spaces or type"
            if near_miss
            else (f"no row of the first {self._unmatched_rows} matched")
        )
        warnings.warn(
            f"reward {self.name!r} applies where {wanted_text}, but {why} ({had}); "
            f"if no row of the data ever matches, this term never applies (warned once)",
            UserWarning,
            stacklevel=4,
        )

    def score(self, batch: Batch) -> Scored:
        for column in self.conditions:
            if column not in batch.columns:
                raise ConfigError(
                    f"reward {self.name!r} filters on column {column!r} (where), but the batch has columns: "
                    f"{', '.join(sorted(batch.columns)) or '(none)'}"
                )
        rows = [
            i
            for i in range(len(batch))
            if all(batch.columns[c][i] in accepted for c, accepted in self.conditions.items())
        ]
        if rows:
            self._matched = True
        else:
            self._warn_unmatched(batch)
        inner = self.inner.score(batch.subset(rows)) if rows else Scored(values=[])
        n = len(batch)

        def scatter(values: list[Any]) -> list[Any]:
            out: list[Any] = [None] * n
            for i, v in zip(rows, values, strict=True):
                out[i] = v
            return out

        if not rows:
            return Scored.leaf(self.name, [None] * n)
        return Scored(
            scatter(inner.values),
            {k: scatter(v) for k, v in inner.components.items()},
            {k: scatter(v) for k, v in inner.statuses.items()},
            {k: scatter(v) for k, v in inner.extracted.items()},
            inner.metrics,
        )

    def close(self) -> None:
        self.inner.close()


def _loose(value: Any) -> str:
    """A column value as compared for the near-miss warning: text, case-folded, without spaces."""
    return "".join(str(value).split()).casefold()


BUILTIN_COMBINATORS: dict[str, type[Combinator]] = {
    "sum": Sum,
    "product": Product,
    "min": Min,
    "max": Max,
    "gate": Gate,
    "clip": Clip,
    "scale": Scale,
}
