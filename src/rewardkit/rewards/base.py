"""The reward contract: a picklable callable with TRL's signature that also reports components and verdicts."""

from __future__ import annotations

import asyncio
import functools
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rewardkit._errors import ConfigError, RewardError, RewardkitError
from rewardkit.rewards.inputs import Batch
from rewardkit.verifiers.verdict import is_infrastructure_failure

if TYPE_CHECKING:
    from typing_extensions import Self


@dataclass
class Scored:
    """What one reward call produced, row by row.

    ``values`` is what the trainer gets. ``components`` holds each leaf reward's values by label (a leaf
    reward reports itself), ``statuses``/``extracted`` the verdict status and extracted answer of each
    verifier-backed leaf, ``metrics`` numbers about the call a leaf logs beside its mean (a judge's tokens
    and cost), by label.
    """

    values: list[float | None]
    components: dict[str, list[float | None]] = field(default_factory=dict)
    statuses: dict[str, list[str | None]] = field(default_factory=dict)
    extracted: dict[str, list[str | None]] = field(default_factory=dict)
    metrics: dict[str, dict[str, float]] = field(default_factory=dict)

    @classmethod
    def leaf(
        cls,
        label: str,
        values: list[float | None],
        statuses: list[str | None] | None = None,
        extracted: list[str | None] | None = None,
        metrics: dict[str, float] | None = None,
    ) -> Scored:
        return cls(
            values=values,
            components={label: values},
            statuses={label: statuses} if statuses is not None else {},
            extracted={label: extracted} if extracted is not None else {},
            metrics={label: metrics} if metrics else {},
        )

    def relabel(self, prefix: str) -> Scored:
        """The same result with every component label under ``prefix/``."""

        def re(d: dict[str, Any]) -> dict[str, Any]:
            return {f"{prefix}/{k}": v for k, v in d.items()}

        return Scored(self.values, re(self.components), re(self.statuses), re(self.extracted), re(self.metrics))


#: Metric names that are shares of a call's rows (a rubric criterion's ``criterion/<name>``, the hybrid's
#: ``judge_share``); every other metric is a sum over the call's rows (tokens, requests, cache hits, cost).
SHARE_METRICS = ("criterion/", "judge_share")


def merge_metrics(parts: list[tuple[dict[str, dict[str, float]], int]]) -> dict[str, dict[str, float]]:
    """The metrics of one call scored in parts of ``rows`` rows each: sums added, shares weighted by rows."""
    sums: dict[str, dict[str, float]] = {}
    weights: dict[tuple[str, str], int] = {}
    for metrics, rows in parts:
        for label, numbers in metrics.items():
            into = sums.setdefault(label, {})
            for key, number in numbers.items():
                if key.startswith(SHARE_METRICS):
                    weights[label, key] = weights.get((label, key), 0) + rows
                    into[key] = into.get(key, 0.0) + number * rows
                else:
                    into[key] = into.get(key, 0.0) + number
    for (label, key), rows in weights.items():
        sums[label][key] = sums[label][key] / rows if rows else 0.0
    return sums


def mean_of(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None and not math.isnan(v)]
    return sum(present) / len(present) if present else None


class Reward:
    """Base class of rewardkit's reward callables.

    Subclasses implement :meth:`score`, which takes a :class:`Batch` and returns a :class:`Scored`.
    Calling the reward the way TRL does, ``reward(prompts=..., completions=..., **columns)``, returns
    one float (or None where the reward does not apply) per completion. Instances must stay picklable:
    keep processes, pools and verifiers in attributes that :meth:`_transient` names, created lazily.
    """

    #: Attributes dropped when pickling (re-created lazily in the new process).
    _transient: tuple[str, ...] = ()
    #: True for a reward that compares the completions of one prompt with each other: callers must not split
    #: a prompt's rows across calls (rewards/groups.py says who keeps them together, and how).
    whole_groups: bool = False

    def __init__(self, name: str) -> None:
        self.__name__ = name

    @property
    def name(self) -> str:
        return self.__name__

    def score(self, batch: Batch) -> Scored:
        raise NotImplementedError

    def __call__(self, prompts: Any = None, completions: Any = None, **kwargs: Any) -> list[float | None]:
        batch = Batch.from_call(prompts, completions, kwargs)
        scored = guarded_score(self, batch, self.name)
        self._log(batch, scored)
        return scored.values

    def explain(self, prompts: Any = None, completions: Any = None, **columns: Any) -> list[dict[str, Any]]:
        """Per row, what this reward made of it: ``reward``, ``components`` (each leaf's value), ``status`` and
        ``extracted`` (the first verifier term's) and ``verdicts`` (every verifier term's), as
        ``rewardkit score`` writes them. Takes the same arguments as a call; logs nothing."""
        batch = Batch.from_call(prompts, completions, {k: v for k, v in columns.items() if k not in LOGGERS})
        scored = guarded_score(self, batch, self.name)
        return [scored_row(scored, i) for i in range(len(batch))]

    def _log(self, batch: Batch, scored: Scored) -> None:
        """Report components and verdict-status rates through TRL's ``log_metric``, and per-sample component
        values and verdict statuses through ``log_extra`` (columns of TRL's completions table)."""
        composite = len(scored.components) > 1
        if batch.log_metric is not None and composite:
            for label, values in scored.components.items():
                mean = mean_of(values)
                if mean is not None:
                    batch.log_metric(f"rewards/{self.name}/{label}/mean", mean)
        if batch.log_metric is not None:
            self._log_status_rates(batch.log_metric, scored, composite)
            for label, metrics in scored.metrics.items():
                prefix = f"rewards/{self.name}/{label}" if composite else f"rewards/{self.name}"
                for key, number in sorted(metrics.items()):
                    batch.log_metric(f"{prefix}/{key}", number)
        if batch.log_extra is not None:
            if composite:
                for label, values in scored.components.items():
                    batch.log_extra(f"{self.name}/{label}", list(values))
            for label, statuses in scored.statuses.items():
                column = f"{self.name}/{label}/status" if composite else f"{self.name}/status"
                batch.log_extra(column, list(statuses))

    def _log_status_rates(self, log_metric: Callable[[str, float], None], scored: Scored, composite: bool) -> None:
        """Per verifier term, the share of its judged rows with each status (every status it has given so
        far, 0.0 when absent this call, so TRL's average over a logging window is not biased) and the share
        that were infrastructure failures (``.../infrastructure_failure_rate``)."""
        seen: dict[str, set[str]] = self.__dict__.setdefault("_statuses_seen", {})
        for label, statuses in scored.statuses.items():
            judged = Counter(str(s) for s in statuses if s is not None)
            total = sum(judged.values())
            if not total:
                continue
            prefix = f"rewards/{self.name}/{label}" if composite else f"rewards/{self.name}"
            known = seen.setdefault(label, set())
            known.update(judged)
            for status in sorted(known):
                log_metric(f"{prefix}/status/{status}", judged[status] / total)
            failed = sum(count for status, count in judged.items() if is_infrastructure_failure(status))
            log_metric(f"{prefix}/infrastructure_failure_rate", failed / total)

    def as_async(self) -> AsyncReward:
        """This reward as a coroutine function (TRL runs async rewards concurrently, off its main thread)."""
        return AsyncReward(self)

    def close(self) -> None:
        """Release verifiers and workers this reward holds. Safe to call twice; the reward stays usable."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        for key in self._transient:
            state[key] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


class AsyncReward:
    """An awaitable view of a reward: ``await r(prompts=..., completions=...)`` runs it in a thread."""

    def __init__(self, reward: Reward) -> None:
        self.reward = reward
        self.__name__ = reward.name

    async def __call__(self, prompts: Any = None, completions: Any = None, **kwargs: Any) -> list[float | None]:
        return await asyncio.to_thread(self.reward, prompts=prompts, completions=completions, **kwargs)

    def close(self) -> None:
        self.reward.close()


class FunctionReward(Reward):
    """Any TRL-style reward function (or awaitable one) as a :class:`Reward`, so combinators can use it."""

    def __init__(self, func: Callable[..., Any], name: str | None = None) -> None:
        super().__init__(name or callable_name(func))
        self.func = func

    def score(self, batch: Batch) -> Scored:
        kwargs: dict[str, Any] = dict(batch.columns)
        if batch.completion_ids is not None:
            kwargs["completion_ids"] = batch.completion_ids
        for key in ("trainer_state", "log_metric", "log_extra"):
            if getattr(batch, key) is not None:
                kwargs[key] = getattr(batch, key)
        try:
            out = self.func(prompts=batch.prompts, completions=batch.completions, **kwargs)
            if asyncio.iscoroutine(out):
                out = _run_coroutine(out)
            values = [None if v is None else float(v) for v in out]
        except RewardkitError:
            raise
        except Exception as exc:
            raise RewardError(_failure(self.name, exc, batch)) from exc
        if len(values) != len(batch):
            raise ConfigError(
                f"reward {self.name!r} returned {len(values)} values for {len(batch)} completions; "
                f"a reward must return exactly one value (or None) per completion"
            )
        return Scored.leaf(self.name, values)

    def close(self) -> None:
        close = getattr(self.func, "close", None)
        if callable(close):
            close()


LOGGERS = ("log_metric", "log_extra")


def _failure(name: str, exc: BaseException, batch: Batch) -> str:
    message = f"reward {name!r} raised {type(exc).__name__}: {exc}"
    if any(not isinstance(c, str) for c in batch.completions):
        message += (
            "; its completions are chat messages ([{'role': 'assistant', 'content': ...}]), as TRL passes them "
            "for a conversational dataset: use rewardkit.completion_text(c) for the text"
        )
    return message


def guarded_score(reward: Reward, batch: Batch, label: str) -> Scored:
    """``reward.score(batch)``, with an error from the reward's own code re-raised as a RewardError naming it."""
    try:
        return reward.score(batch)
    except RewardkitError:
        raise
    except Exception as exc:
        raise RewardError(_failure(label, exc, batch)) from exc


def callable_name(func: Any) -> str:
    """The name TRL logs a reward under: a partial's function name, else ``__name__``, else the class name."""
    while isinstance(func, functools.partial):
        func = func.func
    return getattr(func, "__name__", None) or type(func).__name__


def _run_coroutine(coro: Any) -> Any:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


def as_reward(obj: Any, name: str | None = None) -> Reward:
    """``obj`` as a :class:`Reward`: a Reward is returned as it is, a callable is wrapped."""
    if isinstance(obj, Reward):
        return obj
    if isinstance(obj, AsyncReward):
        return obj.reward
    if callable(obj):
        return FunctionReward(obj, name)
    raise ConfigError(f"expected a reward callable, got {type(obj).__name__}")


def as_async(reward: Any) -> Any:
    """An async variant of any reward (a :class:`Reward` or a plain TRL reward function)."""
    return as_reward(reward).as_async()


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
