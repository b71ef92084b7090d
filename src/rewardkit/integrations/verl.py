"""verl adapter: ``compute_score(data_source, solution_str, ground_truth, extra_info)`` routed to reward specs.

Point verl at it (see docs/verl.md)::

    custom_reward_function.path=<site-packages>/rewardkit/integrations/verl.py
    custom_reward_function.name=compute_score

and say which spec scores which ``data_source``: ``REWARDKIT_VERL_SPECS=/path/routes.yaml`` (a mapping of
data-source names or glob patterns to a spec file, an inline spec, or a registered reward name; ``"*"`` is
the fallback), ``REWARDKIT_VERL_SPEC=spec.yaml`` (one spec for every source), a ``spec=`` keyword (verl's
``custom_reward_function.reward_kwargs``), or :func:`register` in Python.
"""

from __future__ import annotations

import fnmatch
import os
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rewardkit._config_file import load_mapping
from rewardkit._errors import ConfigError
from rewardkit.rewards.base import Reward, guarded_score, scored_row
from rewardkit.rewards.inputs import Batch

SPECS_ENV = "REWARDKIT_VERL_SPECS"
SPEC_ENV = "REWARDKIT_VERL_SPEC"
DETAILS_ENV = "REWARDKIT_VERL_DETAILS"
FALLBACK = "*"

_lock = threading.RLock()
_routes: dict[str, Any] = {}
_built: dict[str, Reward] = {}
_details: bool | None = None


def register(data_source: str, spec: Mapping[str, Any] | str | Path) -> None:
    """Score rows whose ``data_source`` is (or glob-matches) ``data_source`` with ``spec``; ``"*"`` matches any.

    ``spec`` is a spec dict, a YAML/JSON spec path or a registered reward name. It is built (and checked)
    now, so a bad spec fails before verl starts rolling out.
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
    reset()
    for source, spec in routes.items():
        if isinstance(spec, str) and spec.endswith((".yaml", ".yml", ".json")) and not Path(spec).is_absolute():
            spec = str(base / spec)
        register(str(source), spec)
    if details is not None:
        _details = bool(details)


def reset() -> None:
    """Forget every route and close the rewards built for them (the environment is read again on next use)."""
    global _details
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


def compute_score(
    data_source: str,
    solution_str: str,
    ground_truth: Any,
    extra_info: Mapping[str, Any] | None = None,
    spec: Mapping[str, Any] | str | None = None,
    **kwargs: Any,
) -> float | dict[str, Any]:
    """verl's reward-function signature: the score of one response (a float, or a dict with ``"score"``).

    ``ground_truth`` becomes the row's ``answer`` column (what verifier-backed rewards read by default);
    ``extra_info``'s keys become columns too (``ground_truth`` wins over an ``answer`` key there), and
    ``data_source`` is a column, so specs can filter on it with ``where:``. A reward that does not apply
    (None) scores 0.0. Other keyword arguments verl passes are ignored.
    """
    out = compute_score_batch(
        [data_source],
        [solution_str],
        [ground_truth],
        [extra_info],
        spec=spec,
    )
    return out[0]


def compute_score_batch(
    data_sources: Sequence[str],
    solution_strs: Sequence[str],
    ground_truths: Sequence[Any],
    extra_infos: Sequence[Mapping[str, Any] | None] | None = None,
    spec: Mapping[str, Any] | str | None = None,
    **kwargs: Any,
) -> list[float | dict[str, Any]]:
    """verl's batch reward manager signature (``reward_model.reward_manager=batch``): one call per step.

    Rows are grouped by route, and each group is one reward call (one verifier batch).
    """
    n = len(solution_strs)
    if not (len(data_sources) == len(ground_truths) == n):
        raise ConfigError(
            f"verl: got {len(data_sources)} data_sources, {n} solution_strs and {len(ground_truths)} ground_truths"
        )
    infos = list(extra_infos) if extra_infos is not None else [None] * n
    groups: dict[int, tuple[Reward, list[int]]] = {}
    for i, source in enumerate(data_sources):
        reward = _reward_for(str(source), spec)
        groups.setdefault(id(reward), (reward, []))[1].append(i)
    results: list[float | dict[str, Any]] = [0.0] * n
    details = _want_details()
    for reward, rows in groups.values():
        batch = _batch(
            [solution_strs[i] for i in rows],
            [ground_truths[i] for i in rows],
            [str(data_sources[i]) for i in rows],
            [infos[i] for i in rows],
        )
        scored = guarded_score(reward, batch, reward.name)
        for j, i in enumerate(rows):
            value = scored.values[j]
            score = 0.0 if value is None else float(value)
            if not details:
                results[i] = score
                continue
            row = scored_row(scored, j)
            out: dict[str, Any] = {"score": score, "status": str(row["status"] or "")}
            for label, component in row["components"].items():
                out[label] = 0.0 if component is None else float(component)
            results[i] = out
    return results


def _batch(texts: list[str], truths: list[Any], sources: list[str], infos: list[Any]) -> Batch:
    keys: dict[str, None] = {}
    for info in infos:
        if isinstance(info, Mapping):
            keys.update(dict.fromkeys(str(k) for k in info))
    columns: dict[str, list[Any]] = {
        k: [info.get(k) if isinstance(info, Mapping) else None for info in infos] for k in keys
    }
    columns.update({"answer": list(truths), "ground_truth": list(truths), "data_source": list(sources)})
    return Batch.from_call(None, texts, columns)


def _reward_for(data_source: str, spec: Any) -> Reward:
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


def _want_details() -> bool:
    if _details is not None:
        return _details
    return os.environ.get(DETAILS_ENV, "").strip().lower() in ("1", "true", "yes")


def _build(spec: Any, where: str) -> Reward:
    from rewardkit.rewards.api import get_reward
    from rewardkit.rewards.base import as_reward
    from rewardkit.scoring.build import build_reward

    try:
        if isinstance(spec, Mapping) or (
            isinstance(spec, (str, Path)) and str(spec).endswith((".yaml", ".yml", ".json"))
        ):
            return build_reward(spec)
        if isinstance(spec, str):
            return as_reward(get_reward(spec), spec)
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    raise ConfigError(f"{where}: expected a spec dict, a YAML/JSON spec path or a reward name, got {spec!r}")


if __name__ != "rewardkit.integrations.verl":
    # verl loads custom_reward_function.path as a file, under another module name: share the package's routes.
    import importlib

    _package = importlib.import_module("rewardkit.integrations.verl")

    register, configure, reset, routes = _package.register, _package.configure, _package.reset, _package.routes
    compute_score, compute_score_batch = _package.compute_score, _package.compute_score_batch
