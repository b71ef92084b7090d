"""verl adapter, the routes: which reward scores which ``data_source``, built once per process, and the row
helpers ``compute_score``, ``compute_score_batch`` and the Reward Loop's ``compute_score_async`` share."""

from __future__ import annotations

import fnmatch
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from rewardkit._config_file import load_mapping
from rewardkit._errors import ConfigError
from rewardkit.rewards.base import Reward, Scored, scored_row
from rewardkit.rewards.inputs import Batch

SPECS_ENV = "REWARDKIT_VERL_SPECS"
SPEC_ENV = "REWARDKIT_VERL_SPEC"
DETAILS_ENV = "REWARDKIT_VERL_DETAILS"
FALLBACK = "*"

_lock = threading.RLock()
_routes: dict[str, Any] = {}
_built: dict[str, Reward] = {}
_details: bool | None = None


# What else forgets this process's rewards on reset (the Reward Loop's micro-batchers).
ON_RESET: list[Callable[[], None]] = []


def register(data_source: str, spec: Mapping[str, Any] | str | Path | Reward) -> None:
    """Score rows whose ``data_source`` is (or glob-matches) ``data_source`` with ``spec``; ``"*"`` matches any.

    ``spec`` is a spec dict, a YAML/JSON spec path, a registered reward name, or a reward already built (such
    as ``rk.RemoteReward(url)``: rows scored by a reward service). It is built (and checked) now, so a bad
    spec fails before verl starts rolling out.
    """
    if not isinstance(data_source, str) or not data_source:
        raise ConfigError(f"verl: a data_source must be a non-empty string, got {data_source!r}")
    reward = _build(spec, f"verl route {data_source!r}")
    with _lock:
        old = _built.pop(data_source, None)
        _routes[data_source] = spec
        _built[data_source] = reward
    if old is not None:
        old.close()


def configure(routes: Mapping[str, Any] | str | Path, *, details: bool | None = None) -> None:
    """Replace every route: a mapping of data source (or glob) → spec, or the path of a YAML/JSON file of one.

    ``details=True`` makes :func:`compute_score` return ``{"score": ..., "<component>": ..., "status": ...}``
    instead of a float (verl logs the extra keys as ``reward_extra_info``).
    """
    global _details
    base = Path(".")
    if isinstance(routes, (str, Path)):
        base = Path(routes).resolve().parent
        routes = load_mapping(routes, "verl: routes file", "a mapping of data_source to spec")
    if not isinstance(routes, Mapping) or not routes:
        raise ConfigError(f"verl: routes must be a non-empty mapping of data_source to spec, got {routes!r}")
    from rewardkit.scoring.loading import is_spec_path

    reset()
    for source, spec in routes.items():
        if isinstance(spec, str) and not Path(spec).is_absolute() and is_spec_path(str(base / spec)):
            spec = str(base / spec)  # a spec file, relative to the routes file
        register(str(source), spec)
    if details is not None:
        _details = bool(details)


def reset() -> None:
    """Forget every route and close the rewards built for them (the environment is read again on next use)."""
    global _details
    for forget in ON_RESET:
        forget()
    with _lock:
        built = list(_built.values())
        _routes.clear()
        _built.clear()
        _details = None
    for reward in built:
        reward.close()


def routes() -> dict[str, Any]:
    """The current routes (data source or glob → spec as given)."""
    _from_environment()
    with _lock:
        return dict(_routes)


def row_result(
    scored: Scored, j: int, details: bool, keys: Sequence[str] = (), stand_in: float = 0.0
) -> float | dict[str, Any]:
    """What verl gets for row ``j``: its score (``stand_in`` where the reward has none), or with ``details``
    the dict ``{"score", "status", "unscored", <component>: value, ...}``, with a 0.0 for each of ``keys`` the
    row lacks (so every row of a step has the same ``reward_extra_info`` keys)."""
    value = scored.values[j]
    score = stand_in if value is None else float(value)
    if not details:
        return score
    row = scored_row(scored, j)
    out: dict[str, Any] = {"score": score, "status": str(row["status"] or ""), "unscored": float(value is None)}
    for key in keys:
        out.setdefault(key, 0.0)
    for label, component in row["components"].items():
        out[label] = 0.0 if component is None else float(component)
    return out


def prompt_key(source: Any, truth: Any, info: Any) -> str:
    """Rows of one prompt's group share these (verl repeats a prompt's non-tensor fields for each response)."""
    index = info.get("index") if isinstance(info, Mapping) else None
    return repr((str(source), repr(truth), repr(index)))


def group_means(values: Sequence[float | None], keys: Sequence[str]) -> list[float]:
    """For each row, the mean of the scored values of its group (0.0 for a group with none)."""
    sums: dict[str, list[float]] = {}
    for value, key in zip(values, keys, strict=True):
        if value is not None:
            sums.setdefault(key, []).append(float(value))
    return [sum(sums[key]) / len(sums[key]) if key in sums else 0.0 for key in keys]


def row_batch(texts: list[str], truths: list[Any], sources: list[str], infos: list[Any]) -> Batch:
    keys: dict[str, None] = {}
    for info in infos:
        if isinstance(info, Mapping):
            keys.update(dict.fromkeys(str(k) for k in info))
    columns: dict[str, list[Any]] = {
        k: [info.get(k) if isinstance(info, Mapping) else None for info in infos] for k in keys
    }
    columns.update({"answer": list(truths), "ground_truth": list(truths), "data_source": list(sources)})
    return Batch.from_call(None, texts, columns)


def reward_for(data_source: str, spec: Any) -> Reward:
    if spec is not None:
        key = f"spec:{spec!r}"
        with _lock:
            if key not in _built:
                _built[key] = _build(spec, "verl reward_kwargs spec")
            return _built[key]
    _from_environment()
    with _lock:
        if data_source in _built:
            return _built[data_source]
        for pattern, reward in _built.items():
            if (
                pattern not in (FALLBACK,)
                and not pattern.startswith("spec:")
                and fnmatch.fnmatchcase(data_source, pattern)
            ):
                return reward
        if FALLBACK in _built:
            return _built[FALLBACK]
        known = ", ".join(repr(p) for p in _routes) or "(none)"
    raise ConfigError(
        f"verl: no reward spec for data_source {data_source!r}; routes: {known}. Register one with "
        f"rewardkit.integrations.verl.register(...), set {SPECS_ENV} to a YAML file of routes, or set {SPEC_ENV} "
        f"to one spec for every data source"
    )


def _from_environment() -> None:
    with _lock:
        if _routes:
            return
    specs, spec = os.environ.get(SPECS_ENV), os.environ.get(SPEC_ENV)
    if specs:
        configure(specs)
    elif spec:
        register(FALLBACK, spec)


def want_details() -> bool:
    if _details is not None:
        return _details
    return os.environ.get(DETAILS_ENV, "").strip().lower() in ("1", "true", "yes")


def _build(spec: Any, where: str) -> Reward:
    from rewardkit.scoring.loading import resolve_reward

    return resolve_reward(spec, where=where)  # a Reward built already (rk.RemoteReward: a service) as it is
